
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
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Writers (import, put, delete, defrag, alter): when another process holds the writer lock, wait for it instead of failing with exit 5. Also accepted after the subcommand')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an empty database directory')
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store one row at TIME, replacing the rows there (or adding after them with --append)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the rows stored at each TIME, in time order (CSV with a header by default)')
            [CompletionResult]::new('range', 'range', [CompletionResultType]::ParameterValue, 'Print every row with FROM <= time < TO, in time order (CSV with a header by default); with --agg or --ohlcv, one row of aggregates per --every bucket (or for the whole window)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete the rows at FROM, or every row with FROM <= time < TO')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write the whole database, or FROM <= time < TO, to a file, stdout, or one file per year')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import CSV, Parquet or Arrow rows into a database: an upsert by timestamp')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the columns with their types, the time column and zone, layout, granularity, depth or bucket width, series and unique keys, partition period and format version')
            [CompletionResult]::new('alter', 'alter', [CompletionResultType]::ParameterValue, 'Change the schema: add nullable columns, widen columns, rename columns; set the zone of imported local times')
            [CompletionResult]::new('stat', 'stat', [CompletionResultType]::ParameterValue, 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation')
            [CompletionResult]::new('defrag', 'defrag', [CompletionResultType]::ParameterValue, 'Rewrite fragmented partitions so that each data segment is one contiguous allocation')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify every slot, bucket record, directory entry and header of the database')
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
            [CompletionResult]::new('--layout', '--layout', [CompletionResultType]::ParameterName, 'Storage layout: grid (a slot per granularity step; regular series) or bucket (rows with exact times in fixed time buckets; bursty ticks, any number of rows per time)')
            [CompletionResult]::new('--bucket', '--bucket', [CompletionResultType]::ParameterName, 'Bucket width for --layout bucket: a multiple of the granularity that divides one day')
            [CompletionResult]::new('--codec', '--codec', [CompletionResultType]::ParameterName, 'How --layout bucket stores a bucket''s rows: raw (as they are; the fastest reads) or columnar (each column compressed: a few bytes a row; use wide buckets, e.g. 1m)')
            [CompletionResult]::new('--series-by', '--series-by', [CompletionResultType]::ParameterName, 'Columns whose values tell series apart (symbol, host): each series is stored on its own, rows are identified by (series, time), and reads take --series')
            [CompletionResult]::new('--unique-by', '--unique-by', [CompletionResultType]::ParameterName, 'Columns that identify a row among one series'' rows at one time (trade_id): an imported row with a stored key replaces it, a new key is added')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'Time zone that imports read times written without one in: an IANA name (`America/New_York`) or an offset (`-05:00`) (default: UTC). Recorded in the database, so every later import of such files places them alike; an import''s own --timezone, or a header that states a zone, decides for that import')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;put' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('--append', '--append', [CompletionResultType]::ParameterName, 'Add the row after the rows already at TIME (needs --depth > 1) instead of replacing them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;get' {
            [CompletionResult]::new('--join', '--join', [CompletionResultType]::ParameterName, 'With --asof: join the rows of FILE (`-`: stdin) with their as-of matches')
            [CompletionResult]::new('--on', '--on', [CompletionResultType]::ParameterName, 'With --join: the input column holding the times (default: the database''s time column, else one named time, timestamp, ts, datetime, date or t, else the first)')
            [CompletionResult]::new('--time-unit', '--time-unit', [CompletionResultType]::ParameterName, 'With --join: the unit of epoch numbers without one in the input: s, ms, us or ns (default: from their magnitude)')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'With --join: the prefix of the appended column names (default: the database''s name)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Stop after N rows')
            [CompletionResult]::new('--within', '--within', [CompletionResultType]::ParameterName, 'With --asof: look back at most DUR before each TIME (default: to the first partition)')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold. With --asof, the latest timestamp that holds a row that passes')
            [CompletionResult]::new('--series', '--series', [CompletionResultType]::ParameterName, 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Columns to print, in this order, e.g. time,price (name the time column to keep it)')
            [CompletionResult]::new('--time-format', '--time-format', [CompletionResultType]::ParameterName, 'iso (default: ISO-8601 UTC at the granularity''s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as ''%Y-%m-%d %H:%M:%S%.3f'' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--asof', '--asof', [CompletionResultType]::ParameterName, 'For each TIME, the rows of the latest timestamp at or before it (an as-of lookup)')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'Leave out the header line (csv, tsv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;range' {
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'The window from DUR before now (15m, 1h, 1d) onwards, instead of FROM and TO')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Stop after N rows (N buckets with --every)')
            [CompletionResult]::new('--every', '--every', [CompletionResultType]::ParameterName, 'Aggregate into buckets of DUR (1s, 1m, 5m, 1h, 1d, 1w; a multiple of the granularity), aligned on the epoch (weeks on Mondays), or of calendar months (1M, 3M, 12M; UTC); each row''s time is its bucket''s start. Needs --agg or --ohlcv')
            [CompletionResult]::new('--agg', '--agg', [CompletionResultType]::ParameterName, 'Aggregates per bucket (without --every: one row for the whole window, timed FROM): count, first(c), last(c), min(c), max(c), sum(c), mean(c), stddev(c), vwap(price,qty), median(c), quantile(c,q) (0 ≤ q ≤ 1, interpolated; these two read every row)')
            [CompletionResult]::new('--ohlcv', '--ohlcv', [CompletionResultType]::ParameterName, 'Bars per bucket from a price and a quantity column: open,high,low,close,volume,count')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Only rows that meet CONDITION: COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat --where or join with `and` for several, all of which must hold. Quote text with spaces or commas (''a b''); COL= matches nulls, which no comparison does')
            [CompletionResult]::new('--series', '--series', [CompletionResultType]::ParameterName, 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Columns to print, in this order, e.g. time,price (name the time column to keep it)')
            [CompletionResult]::new('--time-format', '--time-format', [CompletionResultType]::ParameterName, 'iso (default: ISO-8601 UTC at the granularity''s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as ''%Y-%m-%d %H:%M:%S%.3f'' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--fill', '--fill', [CompletionResultType]::ParameterName, 'With --every: also print buckets without rows (count 0, other aggregates empty)')
            [CompletionResult]::new('--all-series', '--all-series', [CompletionResultType]::ParameterName, 'With --agg or --ohlcv in a series database: fold every series together instead of one output row per series and bucket')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'Leave out the header line (csv, tsv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;delete' {
            [CompletionResult]::new('--series', '--series', [CompletionResultType]::ParameterName, 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;export' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Start, inclusive (ISO-8601 or epoch with a unit; without a zone, in the database''s time zone); default: the first row')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'End, exclusive; default: after the last row')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output file, `-` for stdout, or with --split a directory (created if missing)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output file, `-` for stdout, or with --split a directory (created if missing)')
            [CompletionResult]::new('--compress', '--compress', [CompletionResultType]::ParameterName, 'Compression of text output: zstd, gzip or none; default: from the file name''s .zst or .gz. (Parquet compresses its column chunks with zstd itself.)')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Compression level: zstd 1 fast … 19 small (default 3; negative levels are faster still), gzip 0 … 9 (default 6)')
            [CompletionResult]::new('--split', '--split', [CompletionResultType]::ParameterName, 'One file per year (or month, day), named after it: 2024.csv, 2024.csv.zst…, written in parallel into the --output directory. Periods without rows get no file')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold')
            [CompletionResult]::new('--series', '--series', [CompletionResultType]::ParameterName, 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Columns to print, in this order, e.g. time,price (name the time column to keep it)')
            [CompletionResult]::new('--time-format', '--time-format', [CompletionResultType]::ParameterName, 'iso (default: ISO-8601 UTC at the granularity''s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as ''%Y-%m-%d %H:%M:%S%.3f'' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'Leave out the header line (csv, tsv)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;import' {
            [CompletionResult]::new('--delimiter', '--delimiter', [CompletionResultType]::ParameterName, 'Field delimiter: one character, or `tab` (default: detected among `,` `;` tab `|`)')
            [CompletionResult]::new('--skip-lines', '--skip-lines', [CompletionResultType]::ParameterName, 'Skip N lines (a preamble) at the start of every input before the header (default: lines before a header whose field count differs from the rows'' are skipped)')
            [CompletionResult]::new('--thousands', '--thousands', [CompletionResultType]::ParameterName, 'The mark that groups thousands in numbers: `,` (`1,234.5`), `''` (`1''234.5`), `space` (`1 234,5`), `nbsp` (a no-break space), or `none` (default: detected from the first records; under a decimal comma, points group thousands anyway)')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'More values to read as null, comma-separated (`--null -200,-999`); in numeric columns a number also matches however it is written (`-200.0`, `-2e2`, `-200,0`). Empty fields, and in numeric and boolean columns `NA`, `N/A`, `null`, `NULL`, `None`, `#N/A`, `\N`, `n/e`, a lone `.`, `-` or `?`, are null anyway (a row whose time is null is rejected)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Without a header: the input''s column names in order, each optionally with a type for a new database (`time,price:f64,side:str(4)`). With a header: types for a new database that replace the guessed ones (`symbol:str(8),qty:f32`)')
            [CompletionResult]::new('--time-column', '--time-column', [CompletionResultType]::ParameterName, 'The input column holding the time, or several joined with a space in the order given (`Date,Time`) (default: the database''s time column, or a guess). Header text or its alias')
            [CompletionResult]::new('--date', '--date', [CompletionResultType]::ParameterName, 'The date of times that carry none (`09:30:00`, or a number since midnight with --time-unit) (default: a date in the file name, such as `20131007_…`)')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'Time zone of times written without one: an IANA name (`America/New_York`) or an offset (`-05:00`) (default: UTC)')
            [CompletionResult]::new('--dst', '--dst', [CompletionResultType]::ParameterName, 'With --timezone: place local times that a daylight-saving change makes ambiguous or skips at the earlier or the later instant (default: reject them)')
            [CompletionResult]::new('--time-unit', '--time-unit', [CompletionResultType]::ParameterName, 'Unit of epoch-number times: s, ms, us, ns (default: guessed from their magnitude)')
            [CompletionResult]::new('--time-format', '--time-format', [CompletionResultType]::ParameterName, 'strftime pattern of the times, e.g. ''%d/%m/%Y %H:%M:%S'' (without a date it reads times of day), or `dmy`, `mdy`, `ymd`: the detected shapes with the date in that order, or `hhmmss`, `hhmmssmmm` (or `hhmmss` and 6 or 9 `f`): times of day as clock digits (`93000` is 09:30:00), `hhmm`: clock digits without seconds (`930` is 09:30), `quarter` (`1990Q1`, `Q1 1990`), or `excel`: a spreadsheet''s serial days (`44197.75` is 2021-01-01 18:00, to the millisecond). A pattern without the day (`%Y-%m`, `%Y`) stores each month or year at its first day (default: detected — ISO-8601, epoch numbers, dates in year-month-day, day/month/year or month/day/year order with a time, compact YYYYMMDDHHMM…, clock digits, months `YYYY-MM` or `Jan 2021`, ISO weeks, quarters, years in a `Year` column)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Text encoding of the inputs when not UTF-8: utf-16le, utf-16be, windows-1252 (latin1), iso-8859-15, shift_jis… (default: UTF-8, or UTF-16 where a byte-order mark says so)')
            [CompletionResult]::new('--granularity', '--granularity', [CompletionResultType]::ParameterName, 'New database only: time step between slots (default: inferred)')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'New database only: rows one timestamp can hold (default: inferred)')
            [CompletionResult]::new('--layout', '--layout', [CompletionResultType]::ParameterName, 'New database only: storage layout, grid or bucket (default: inferred — grid for regular series, bucket for irregular or bursty ticks)')
            [CompletionResult]::new('--bucket', '--bucket', [CompletionResultType]::ParameterName, 'New database only: bucket width for the bucket layout (default: inferred)')
            [CompletionResult]::new('--codec', '--codec', [CompletionResultType]::ParameterName, 'New database only: how the bucket layout stores rows: columnar (each column compressed; the default) or raw (as they are; the fastest point reads)')
            [CompletionResult]::new('--partition', '--partition', [CompletionResultType]::ParameterName, 'New database only: year, month or day (default: the longest that fits)')
            [CompletionResult]::new('--rejects', '--rejects', [CompletionResultType]::ParameterName, 'Where rejected rows go (default: DB/rejects-<time>.csv, written only if needed)')
            [CompletionResult]::new('--series-by', '--series-by', [CompletionResultType]::ParameterName, 'New database: the columns that tell series apart (symbol, host); each series is stored on its own and rows are identified by (series, time). Default: inferred; `none`: one series')
            [CompletionResult]::new('--unique-by', '--unique-by', [CompletionResultType]::ParameterName, 'New database: the columns that identify a row among a series'' rows at one time (trade_id): a row whose key is stored replaces it. Default: inferred; `none`: no key')
            [CompletionResult]::new('--max-rejects', '--max-rejects', [CompletionResultType]::ParameterName, 'Rejected rows allowed before exiting with status 4')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--chunk-bytes', '--chunk-bytes', [CompletionResultType]::ParameterName, 'Bytes of input per chunk (testing and tuning; default 1 MiB)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('--header', '--header', [CompletionResultType]::ParameterName, 'The first line is a header (default: detected — a first line that does not type like the rows below it is a header; into an existing database, one that names its columns)')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'The input has no header line; name its columns with --columns (default for an existing database: the time column, then its columns in order; for a new one: column_1, column_2…)')
            [CompletionResult]::new('--decimal-comma', '--decimal-comma', [CompletionResultType]::ParameterName, 'Numbers are written with a decimal comma (`2,6`) (default: detected in files not separated by commas; a database created from such a file records it, and reads later files whose numbers do not show their mark, such as `1.500`, with a decimal comma)')
            [CompletionResult]::new('--decimal-point', '--decimal-point', [CompletionResultType]::ParameterName, 'Numbers are written with a decimal point (`2.6`, `1.500` is one and a half): the default, unless the file''s numbers show a decimal comma or the database records one')
            [CompletionResult]::new('--ignore-columns', '--ignore-columns', [CompletionResultType]::ParameterName, 'Skip input columns the database does not have (default: refuse them)')
            [CompletionResult]::new('--update-columns', '--update-columns', [CompletionResultType]::ParameterName, 'Change only the columns the input has in the stored rows it meets: the row with the same unique key, or the one row stored at that time and series (default: an input must have every column, and its rows replace the stored rows of their times). Rows that were not stored are added with the other columns null')
            [CompletionResult]::new('--floor-time', '--floor-time', [CompletionResultType]::ParameterName, 'Round times down to the granularity instead of rejecting misaligned ones')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on success: no inference notes, no summary (errors, and warnings that call for action, still go to stderr)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on success: no inference notes, no summary (errors, and warnings that call for action, still go to stderr)')
            [CompletionResult]::new('--no-sync', '--no-sync', [CompletionResultType]::ParameterName, 'Skip the final fsync of the written files (faster; not durable across a power loss)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;schema' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;alter' {
            [CompletionResult]::new('--add', '--add', [CompletionResultType]::ParameterName, 'Add a column NAME of TYPE (any type create takes), nullable; repeatable')
            [CompletionResult]::new('--widen', '--widen', [CompletionResultType]::ParameterName, 'Widen column NAME to TYPE; repeatable')
            [CompletionResult]::new('--rename', '--rename', [CompletionResultType]::ParameterName, 'Rename column OLD to NEW; repeatable')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'The zone later imports read times written without one in: an IANA name (`America/New_York`), an offset (`-05:00`) or UTC. Stored rows do not move')
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
            [CompletionResult]::new('--series', '--series', [CompletionResultType]::ParameterName, 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Audit every database found under the directories given (default: the current one): a line each, and totals. Symbolic links are not followed')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Audit every database found under the directories given (default: the current one): a line each, and totals. Symbolic links are not followed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (schema in docs/STAT.md) instead of a table')
            [CompletionResult]::new('--bytes', '--bytes', [CompletionResultType]::ParameterName, 'Print sizes as exact byte counts instead of KiB/MiB/GiB')
            [CompletionResult]::new('--fast', '--fast', [CompletionResultType]::ParameterName, 'Grid layout: skip counting rows (no row data is read; rows, row bytes, fill, first and last are omitted). Bucket layout: no effect, its rows are counted from the bucket directory, which stat reads anyway (never the data file)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;defrag' {
            [CompletionResult]::new('--min-extents', '--min-extents', [CompletionResultType]::ParameterName, 'Rewrite only partitions with at least N fragmented extents; 0 rewrites every one')
            [CompletionResult]::new('--codec', '--codec', [CompletionResultType]::ParameterName, 'Bucket layout: store records with this codec from now on (saved in xs.toml) and rewrite every partition of the other one: columnar (each column compressed) or raw')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'When another process holds the writer lock, wait for it instead of failing with exit 5')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Report what would be rewritten and the space it needs; change nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;check' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;generate' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'Database directory; default: the current directory, if it is a database')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'xs;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an empty database directory')
            [CompletionResult]::new('put', 'put', [CompletionResultType]::ParameterValue, 'Store one row at TIME, replacing the rows there (or adding after them with --append)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print the rows stored at each TIME, in time order (CSV with a header by default)')
            [CompletionResult]::new('range', 'range', [CompletionResultType]::ParameterValue, 'Print every row with FROM <= time < TO, in time order (CSV with a header by default); with --agg or --ohlcv, one row of aggregates per --every bucket (or for the whole window)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete the rows at FROM, or every row with FROM <= time < TO')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write the whole database, or FROM <= time < TO, to a file, stdout, or one file per year')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import CSV, Parquet or Arrow rows into a database: an upsert by timestamp')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the columns with their types, the time column and zone, layout, granularity, depth or bucket width, series and unique keys, partition period and format version')
            [CompletionResult]::new('alter', 'alter', [CompletionResultType]::ParameterValue, 'Change the schema: add nullable columns, widen columns, rename columns; set the zone of imported local times')
            [CompletionResult]::new('stat', 'stat', [CompletionResultType]::ParameterValue, 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation')
            [CompletionResult]::new('defrag', 'defrag', [CompletionResultType]::ParameterValue, 'Rewrite fragmented partitions so that each data segment is one contiguous allocation')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify every slot, bucket record, directory entry and header of the database')
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
        'xs;help;export' {
            break
        }
        'xs;help;import' {
            break
        }
        'xs;help;schema' {
            break
        }
        'xs;help;alter' {
            break
        }
        'xs;help;stat' {
            break
        }
        'xs;help;defrag' {
            break
        }
        'xs;help;check' {
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
