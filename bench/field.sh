# field.sh - sourced by bench/run.sh and bench/threads.sh.
# field_capture FIELD TMPDIR OUT: every field capture of FIELD (*.pcap.xz,
# *.pcap.gz) decompressed into TMPDIR, then written end to end into OUT
# (mergecap -a); status 1, and nothing written, when FIELD has none or
# mergecap is missing.
field_capture() {
    local field=$1 dir=$2 out=$3 f p parts=()
    [ -d "$field" ] && ls "$field"/*.pcap.* >/dev/null 2>&1 && command -v mergecap >/dev/null || return 1
    for f in "$field"/*.pcap.*; do
        p=$dir/$(basename "$f").pcap
        case $f in
        *.xz) xzcat "$f" >"$p" ;;
        *.gz) zcat "$f" >"$p" ;;
        *) continue ;;
        esac
        parts+=("$p")
    done
    mergecap -a -F pcap -w "$out" "${parts[@]}"
    rm -f "${parts[@]}"
}
