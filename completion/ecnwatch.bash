# bash completion for ecnwatch(1)
#
# Options and the kind of value each takes are read from `ecnwatch --help`
# (once per shell and binary), so that the completion follows the binary it
# completes for; the list below is used when that binary cannot be run.
# Values: files after -r, -o, -w, -F, --csv, --metrics-file, --web-config and --probe-report, folders after --plot,
# interface names after -i (from /sys/class/net), user names after -Z, and
# misuse kinds after --fail-on (comma-separated).

_ecnwatch_fallback_help='
  -r FILE
  -i IFACE
  -s SNAPLEN
  -B KIB
  -Z USER
  -D
  --list WHAT
  -w FILE
  -F FILE
  -n
  --interval SEC
  --timeseries
  --plot DIR
  --csv FILE
  --json
  --ndjson
  -o FILE
  -c N
  -q
  --max-flows N
  --max-output SIZE
  --hot-flows N
  --workers N
  --idle-timeout SEC
  --hash-seed N
  --text-flows N
  --sort KEY
  --text-all
  --decap TYPE:PORT
  --no-decap
  --fail-on KINDS
  --probe HOST
  --probe-max-ttl N
  --probe-rate N
  --probe-max N
  --probe-wait MS
  --probe-udp-port N
  --probe-types LIST
  --probe-report FILE
  --metrics ADDR:PORT
  --metrics-file PATH
  --web-config FILE
  -h, --help
  -V, --version
'

# the names ew_misuse_name gives (src/misuse.c), and "any"
_ecnwatch_kinds='ect_without_negotiation ce_on_not_ect ect_on_not_ect bleaching remarking
ce_unmarked ect_on_syn ect_on_control ect1_without_l4s feedback_missing ece_ignored ece_held
accecn_handshake_violation accecn_option_mangled accecn_ace_zeroed ecn_flags_reflected
classic_aqm_under_l4s quic_ecn_validation_failed tunnel_ecn_not_propagated
tunnel_ecn_unsafe_combination tunnel_decap_violation ecn_setup_stripped ecn_blackhole any'

# _ecnwatch_options CMD: sets _ecnwatch_opts (every option) and
# _ecnwatch_args (" -r:FILE --plot:DIR ... ": the options that take a value)
_ecnwatch_options()
{
    local cmd=$1 help line word arg
    if [[ ${_ecnwatch_cache_cmd-} == "$cmd" && -n ${_ecnwatch_opts-} ]]; then
        return
    fi
    help=$(command "$cmd" --help 2>/dev/null) || help=
    [[ $help == *--help* ]] || help=$_ecnwatch_fallback_help
    _ecnwatch_opts=
    _ecnwatch_args=' '
    while IFS= read -r line; do
        # option lines: two spaces, then "-x", "--long" or "-x, --long", then a value name
        [[ $line =~ ^\ \ (-[A-Za-z0-9](,\ --[a-z0-9-]+)?|--[a-z0-9-]+)(\ ([A-Z]+))? ]] || continue
        arg=${BASH_REMATCH[4]}
        for word in ${BASH_REMATCH[1]//,/}; do
            _ecnwatch_opts+="$word "
            [[ -n $arg ]] && _ecnwatch_args+="$word:$arg "
        done
    done <<<"$help"
    _ecnwatch_cache_cmd=$cmd
}

_ecnwatch()
{
    local cur prev opt pre='' arg kinds head k
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    _ecnwatch_options "${COMP_WORDS[0]}"

    # --opt=value: as one word, or split at "=" by COMP_WORDBREAKS
    if [[ $cur == --*=* ]]; then
        opt=${cur%%=*}
        pre=$opt=
        cur=${cur#*=}
    elif [[ $cur == = && $prev == --* ]]; then
        opt=$prev
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then
        opt=${COMP_WORDS[COMP_CWORD - 2]}
    else
        opt=$prev
    fi

    arg=
    if [[ $_ecnwatch_args == *" $opt:"* ]]; then
        arg=${_ecnwatch_args#*" $opt:"}
        arg=${arg%% *}
    fi
    case $arg in
    '')
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$_ecnwatch_opts" -- "$cur")
        fi
        # other words are a libpcap filter expression: left to the user
        return
        ;;
    FILE | PATH)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        ;;
    DIR)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        ;;
    IFACE | INTERFACE)
        mapfile -t COMPREPLY < <(compgen -W "$(command ls /sys/class/net 2>/dev/null)" -- "$cur")
        ;;
    USER)
        mapfile -t COMPREPLY < <(compgen -u -- "$cur")
        ;;
    KEY)
        mapfile -t COMPREPLY < <(compgen -W "bytes packets first" -- "$cur")
        ;;
    KINDS)
        # the kinds already typed stay; the last one is completed
        head=
        [[ $cur == *,* ]] && head=${cur%,*},
        kinds=
        for k in $_ecnwatch_kinds; do
            [[ ",$head" == *",$k,"* ]] || kinds+="$head$k "
        done
        compopt -o nospace 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -W "$kinds" -- "$cur")
        ;;
    *)
        # a number or a length: nothing to offer
        ;;
    esac
    # "--opt=value" as one word: the reply replaces the whole word
    [[ -n $pre ]] && ((${#COMPREPLY[@]})) && COMPREPLY=("${COMPREPLY[@]/#/$pre}")
    return 0
}

complete -F _ecnwatch ecnwatch
