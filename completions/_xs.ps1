
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'xs' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'xs'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'xs' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an empty database directory')
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store one row at TIME, replacing the rows there (or adding after them with --append)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the rows stored at each TIME as CSV with a header, in time order')
            [CompletionResult]::new('range', 'range', [CompletionResultType]::ParameterValue, 'Print every row with FROM <= time < TO as CSV with a header, in time order')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete the rows at FROM, or every row with FROM <= time < TO')
            [CompletionResult]::new('stat', 'stat', [CompletionResultType]::ParameterValue, 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation')
            [CompletionResult]::new('defrag', 'defrag', [CompletionResultType]::ParameterValue, 'Rewrite fragmented partitions so that each data segment is one contiguous allocation')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Print shell completions or the man page (used to build completions/ and docs/xs.1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xs;create' {
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Time step between slots; must divide one day: 1ns 1us 1ms 10ms 1s 1m 1h 1d …')
            [CompletionResult]::new('--granularity', '--granularity', [CompletionResultType]::ParameterName, 'Time step between slots; must divide one day: 1ns 1us 1ms 10ms 1s 1m 1h 1d …')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Columns as name:type, comma-separated, e.g. ''price:f64,qty:f64,side:str(4)''')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Columns as name:type, comma-separated, e.g. ''price:f64,qty:f64,side:str(4)''')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'Rows one timestamp can hold (e.g. several trades in one millisecond)')
            [CompletionResult]::new('--partition', '--partition', [CompletionResultType]::ParameterName, 'Time covered by one file; default: year, or month/day when a year file would be too large')
            [CompletionResult]::new('--time-column', '--time-column', [CompletionResultType]::ParameterName, 'Name of the time column in input and output headers')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;put' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--append', '--append', [CompletionResultType]::ParameterName, 'Add the row after the rows already at TIME (needs --depth > 1) instead of replacing them')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;get' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;range' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Stop after N rows')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;delete' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;stat' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (schema in docs/STAT.md) instead of a table')
            [CompletionResult]::new('--bytes', '--bytes', [CompletionResultType]::ParameterName, 'Print sizes as exact byte counts instead of KiB/MiB/GiB')
            [CompletionResult]::new('--fast', '--fast', [CompletionResultType]::ParameterName, 'Skip counting rows (no data is read): rows, row bytes, fill, first and last are omitted')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;defrag' {
            [CompletionResult]::new('--min-extents', '--min-extents', [CompletionResultType]::ParameterName, 'Rewrite only partitions with at least N fragmented extents; 0 rewrites every one')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Report what would be rewritten and the space it needs; change nothing')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;generate' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an empty database directory')
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store one row at TIME, replacing the rows there (or adding after them with --append)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the rows stored at each TIME as CSV with a header, in time order')
            [CompletionResult]::new('range', 'range', [CompletionResultType]::ParameterValue, 'Print every row with FROM <= time < TO as CSV with a header, in time order')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete the rows at FROM, or every row with FROM <= time < TO')
            [CompletionResult]::new('stat', 'stat', [CompletionResultType]::ParameterValue, 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation')
            [CompletionResult]::new('defrag', 'defrag', [CompletionResultType]::ParameterValue, 'Rewrite fragmented partitions so that each data segment is one contiguous allocation')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Print shell completions or the man page (used to build completions/ and docs/xs.1)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xs;help;create' {
            break
        }
        'xs;help;put' {
            break
        }
        'xs;help;get' {
            break
        }
        'xs;help;range' {
            break
        }
        'xs;help;delete' {
            break
        }
        'xs;help;stat' {
            break
        }
        'xs;help;defrag' {
            break
        }
        'xs;help;generate' {
            break
        }
        'xs;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
