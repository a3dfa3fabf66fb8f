# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_xs_global_optspecs
    string join \n d/db= wait h/help V/version
end

function __fish_xs_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_xs_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_xs_using_subcommand
    set -l cmd (__fish_xs_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c xs -n "__fish_xs_needs_command" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_needs_command" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_needs_command" -s h -l help -d 'Print help'
complete -c xs -n "__fish_xs_needs_command" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_needs_command" -f -a "create" -d 'Create an empty database directory'
complete -c xs -n "__fish_xs_needs_command" -f -a "put" -d 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
complete -c xs -n "__fish_xs_needs_command" -f -a "get" -d 'Print the rows stored at each TIME as CSV with a header, in time order'
complete -c xs -n "__fish_xs_needs_command" -f -a "range" -d 'Print every row with FROM <= time < TO as CSV with a header, in time order'
complete -c xs -n "__fish_xs_needs_command" -f -a "delete" -d 'Delete the rows at FROM, or every row with FROM <= time < TO'
complete -c xs -n "__fish_xs_needs_command" -f -a "stat" -d 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
complete -c xs -n "__fish_xs_needs_command" -f -a "defrag" -d 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
complete -c xs -n "__fish_xs_needs_command" -f -a "generate" -d 'Print shell completions or the man page (used to build completions/ and docs/xs.1)'
complete -c xs -n "__fish_xs_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xs -n "__fish_xs_using_subcommand create" -s g -l granularity -d 'Time step between slots; must divide one day: 1ns 1us 1ms 10ms 1s 1m 1h 1d …' -r
complete -c xs -n "__fish_xs_using_subcommand create" -s c -l columns -d 'Columns as name:type, comma-separated, e.g. \'price:f64,qty:f64,side:str(4)\'' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l depth -d 'Rows one timestamp can hold (e.g. several trades in one millisecond)' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l partition -d 'Time covered by one file; default: year, or month/day when a year file would be too large' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l time-column -d 'Name of the time column in input and output headers' -r
complete -c xs -n "__fish_xs_using_subcommand create" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand create" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand create" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand put" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand put" -l append -d 'Add the row after the rows already at TIME (needs --depth > 1) instead of replacing them'
complete -c xs -n "__fish_xs_using_subcommand put" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand put" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand put" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand get" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand get" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand get" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand range" -l limit -d 'Stop after N rows' -r
complete -c xs -n "__fish_xs_using_subcommand range" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand range" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand range" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand range" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand delete" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand delete" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand delete" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand stat" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand stat" -l json -d 'Print JSON (schema in docs/STAT.md) instead of a table'
complete -c xs -n "__fish_xs_using_subcommand stat" -l bytes -d 'Print sizes as exact byte counts instead of KiB/MiB/GiB'
complete -c xs -n "__fish_xs_using_subcommand stat" -l fast -d 'Skip counting rows (no data is read): rows, row bytes, fill, first and last are omitted'
complete -c xs -n "__fish_xs_using_subcommand stat" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand stat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand stat" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand defrag" -l min-extents -d 'Rewrite only partitions with at least N fragmented extents; 0 rewrites every one' -r
complete -c xs -n "__fish_xs_using_subcommand defrag" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand defrag" -l dry-run -d 'Report what would be rewritten and the space it needs; change nothing'
complete -c xs -n "__fish_xs_using_subcommand defrag" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand defrag" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand defrag" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand generate" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand generate" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand generate" -s h -l help -d 'Print help'
complete -c xs -n "__fish_xs_using_subcommand generate" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "create" -d 'Create an empty database directory'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "put" -d 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "get" -d 'Print the rows stored at each TIME as CSV with a header, in time order'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "range" -d 'Print every row with FROM <= time < TO as CSV with a header, in time order'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "delete" -d 'Delete the rows at FROM, or every row with FROM <= time < TO'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "stat" -d 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "defrag" -d 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "generate" -d 'Print shell completions or the man page (used to build completions/ and docs/xs.1)'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete stat defrag generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
