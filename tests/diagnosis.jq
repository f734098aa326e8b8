# diagnosis.jq - the diagnosis metrics (ecnwatch(1), Metrics) as one JSON
# report says them: run on the report with --slurpfile schema
# man/ecnwatch-report.schema.json, it prints the sample lines that
# ecnwatch_flow_directions_by_path, ecnwatch_bottlenecks,
# ecnwatch_bottleneck_flows and ecnwatch_flow_queueing_delay_seconds must
# have in the metrics of the same run, in ecnwatch's order, every label value
# the schema's enums name included. Worked out here from the report alone
# (tests/metrics.sh, tests/prometheus.sh), not from ecnwatch's code.

# microseconds as seconds, with as few digits as they need
def secs: (. / 1000000 | floor) as $i | (. % 1000000) as $f
    | if $f == 0 then "\($i)" else "\($i)." + ("00000\($f)"[-6:] | sub("0+$"; "")) end;

$schema[0]["$defs"] as $d
| [.flows[] | .c2s, .s2c | select(.path != null)] as $dirs
| [.bottlenecks[]] as $bn
| ["0.0005", "0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1"] as $le
| ($d.dir_path.properties.aqm.enum[] as $a
   | "ecnwatch_flow_directions_by_path{aqm=\"\($a)\"} \([$dirs[] | select(.path.aqm == $a)] | length)"),
  ($d.bottleneck.properties.looks_like.enum[] as $k
   | "ecnwatch_bottlenecks{looks_like=\"\($k)\"} \([$bn[] | select(.looks_like == $k)] | length)"),
  ($d.bottleneck.properties.looks_like.enum[] as $k
   | "ecnwatch_bottleneck_flows{looks_like=\"\($k)\"} \([$bn[] | select(.looks_like == $k) | (.l4s.flows + .classic.flows)[]] | length)"),
  ($d.sender_codepoint.enum[] as $c
   | [$dirs[] | select(.sender_codepoint == $c and .path.qdelay_median_ms != null)
      | .path.qdelay_median_ms * 1000 | round] as $us
   | ($le[] as $l
      | "ecnwatch_flow_queueing_delay_seconds_bucket{sender_codepoint=\"\($c)\",le=\"\($l)\"} \([$us[] | select(. <= ($l | tonumber) * 1000000 + 0.5)] | length)"),
     "ecnwatch_flow_queueing_delay_seconds_bucket{sender_codepoint=\"\($c)\",le=\"+Inf\"} \($us | length)",
     "ecnwatch_flow_queueing_delay_seconds_sum{sender_codepoint=\"\($c)\"} \($us | add // 0 | secs)",
     "ecnwatch_flow_queueing_delay_seconds_count{sender_codepoint=\"\($c)\"} \($us | length)")
