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
complete -c xs -n "__fish_xs_needs_command" -l wait -d 'Writers (import, put, delete, defrag, alter): when another process holds the writer lock, wait for it instead of failing with exit 5. Also accepted after the subcommand'
complete -c xs -n "__fish_xs_needs_command" -s h -l help -d 'Print help'
complete -c xs -n "__fish_xs_needs_command" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_needs_command" -f -a "create" -d 'Create an empty database directory'
complete -c xs -n "__fish_xs_needs_command" -f -a "put" -d 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
complete -c xs -n "__fish_xs_needs_command" -f -a "get" -d 'Print the rows stored at each TIME, in time order (CSV with a header by default)'
complete -c xs -n "__fish_xs_needs_command" -f -a "range" -d 'Print every row with FROM <= time < TO, in time order (CSV with a header by default); with --agg or --ohlcv, one row of aggregates per --every bucket (or for the whole window)'
complete -c xs -n "__fish_xs_needs_command" -f -a "delete" -d 'Delete the rows at FROM, or every row with FROM <= time < TO'
complete -c xs -n "__fish_xs_needs_command" -f -a "export" -d 'Write the whole database, or FROM <= time < TO, to a file, stdout, or one file per year'
complete -c xs -n "__fish_xs_needs_command" -f -a "import" -d 'Import CSV, Parquet or Arrow rows into a database: an upsert by timestamp'
complete -c xs -n "__fish_xs_needs_command" -f -a "schema" -d 'Print the columns with their types, the time column and zone, layout, granularity, depth or bucket width, series and unique keys, partition period and format version'
complete -c xs -n "__fish_xs_needs_command" -f -a "alter" -d 'Change the schema: add nullable columns, widen columns, rename columns; set the zone of imported local times'
complete -c xs -n "__fish_xs_needs_command" -f -a "stat" -d 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
complete -c xs -n "__fish_xs_needs_command" -f -a "defrag" -d 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
complete -c xs -n "__fish_xs_needs_command" -f -a "check" -d 'Verify every slot, bucket record, directory entry and header of the database'
complete -c xs -n "__fish_xs_needs_command" -f -a "generate" -d 'Print shell completions or the man page (used to build completions/ and docs/xs.1)'
complete -c xs -n "__fish_xs_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xs -n "__fish_xs_using_subcommand create" -s g -l granularity -d 'Time step between slots; must divide one day: 1ns 1us 1ms 10ms 1s 1m 1h 1d …' -r
complete -c xs -n "__fish_xs_using_subcommand create" -s c -l columns -d 'Columns as name:type, comma-separated, e.g. \'price:f64,qty:f64,side:str(4)\'' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l depth -d 'Rows one timestamp can hold (e.g. several trades in one millisecond)' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l partition -d 'Time covered by one file; default: year, or month/day when a year file would be too large' -r -f -a "year\t''
month\t''
day\t''"
complete -c xs -n "__fish_xs_using_subcommand create" -l time-column -d 'Name of the time column in input and output headers' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l layout -d 'Storage layout: grid (a slot per granularity step; regular series) or bucket (rows with exact times in fixed time buckets; bursty ticks, any number of rows per time)' -r -f -a "grid\t''
bucket\t''"
complete -c xs -n "__fish_xs_using_subcommand create" -l bucket -d 'Bucket width for --layout bucket: a multiple of the granularity that divides one day' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l codec -d 'How --layout bucket stores a bucket\'s rows: raw (as they are; the fastest reads) or columnar (each column compressed: a few bytes a row; use wide buckets, e.g. 1m)' -r -f -a "raw\t''
columnar\t''"
complete -c xs -n "__fish_xs_using_subcommand create" -l series-by -d 'Columns whose values tell series apart (symbol, host): each series is stored on its own, rows are identified by (series, time), and reads take --series' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l unique-by -d 'Columns that identify a row among one series\' rows at one time (trade_id): an imported row with a stored key replaces it, a new key is added' -r
complete -c xs -n "__fish_xs_using_subcommand create" -l timezone -d 'Time zone that imports read times written without one in: an IANA name (`America/New_York`) or an offset (`-05:00`) (default: UTC). Recorded in the database, so every later import of such files places them alike; an import\'s own --timezone, or a header that states a zone, decides for that import' -r
complete -c xs -n "__fish_xs_using_subcommand create" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand create" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand put" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand put" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand put" -l append -d 'Add the row after the rows already at TIME (needs --depth > 1) instead of replacing them'
complete -c xs -n "__fish_xs_using_subcommand put" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand put" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand get" -l join -d 'With --asof: join the rows of FILE (`-`: stdin) with their as-of matches' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l on -d 'With --join: the input column holding the times (default: the database\'s time column, else one named time, timestamp, ts, datetime, date or t, else the first)' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l time-unit -d 'With --join: the unit of epoch numbers without one in the input: s, ms, us or ns (default: from their magnitude)' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l prefix -d 'With --join: the prefix of the appended column names (default: the database\'s name)' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l limit -d 'Stop after N rows' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l within -d 'With --asof: look back at most DUR before each TIME (default: to the first partition)' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l where -d 'Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold. With --asof, the latest timestamp that holds a row that passes' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l series -d 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order' -r
complete -c xs -n "__fish_xs_using_subcommand get" -s f -l format -d 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file\'s extension, else csv' -r -f -a "csv\t''
tsv\t''
ndjson\t''
parquet\t''
arrow\t''"
complete -c xs -n "__fish_xs_using_subcommand get" -l columns -d 'Columns to print, in this order, e.g. time,price (name the time column to keep it)' -r
complete -c xs -n "__fish_xs_using_subcommand get" -l time-format -d 'iso (default: ISO-8601 UTC at the granularity\'s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as \'%Y-%m-%d %H:%M:%S%.3f\' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp' -r -f -a "iso\t''
epoch-s\t''
epoch-ms\t''
epoch-us\t''
epoch-ns\t''"
complete -c xs -n "__fish_xs_using_subcommand get" -s o -l output -d 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows' -r -F
complete -c xs -n "__fish_xs_using_subcommand get" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand get" -l asof -d 'For each TIME, the rows of the latest timestamp at or before it (an as-of lookup)'
complete -c xs -n "__fish_xs_using_subcommand get" -l no-header -d 'Leave out the header line (csv, tsv)'
complete -c xs -n "__fish_xs_using_subcommand get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand get" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand range" -l last -d 'The window from DUR before now (15m, 1h, 1d) onwards, instead of FROM and TO' -r
complete -c xs -n "__fish_xs_using_subcommand range" -l limit -d 'Stop after N rows (N buckets with --every)' -r
complete -c xs -n "__fish_xs_using_subcommand range" -l every -d 'Aggregate into buckets of DUR (1s, 1m, 5m, 1h, 1d, 1w; a multiple of the granularity), aligned on the epoch (weeks on Mondays), or of calendar months (1M, 3M, 12M; UTC); each row\'s time is its bucket\'s start. Needs --agg or --ohlcv' -r
complete -c xs -n "__fish_xs_using_subcommand range" -l agg -d 'Aggregates per bucket (without --every: one row for the whole window, timed FROM): count, first(c), last(c), min(c), max(c), sum(c), mean(c), stddev(c), vwap(price,qty), median(c), quantile(c,q) (0 ≤ q ≤ 1, interpolated; these two read every row)' -r
complete -c xs -n "__fish_xs_using_subcommand range" -l ohlcv -d 'Bars per bucket from a price and a quantity column: open,high,low,close,volume,count' -r
complete -c xs -n "__fish_xs_using_subcommand range" -l where -d 'Only rows that meet CONDITION: COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat --where or join with `and` for several, all of which must hold. Quote text with spaces or commas (\'a b\'); COL= matches nulls, which no comparison does' -r
complete -c xs -n "__fish_xs_using_subcommand range" -l series -d 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order' -r
complete -c xs -n "__fish_xs_using_subcommand range" -s f -l format -d 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file\'s extension, else csv' -r -f -a "csv\t''
tsv\t''
ndjson\t''
parquet\t''
arrow\t''"
complete -c xs -n "__fish_xs_using_subcommand range" -l columns -d 'Columns to print, in this order, e.g. time,price (name the time column to keep it)' -r
complete -c xs -n "__fish_xs_using_subcommand range" -l time-format -d 'iso (default: ISO-8601 UTC at the granularity\'s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as \'%Y-%m-%d %H:%M:%S%.3f\' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp' -r -f -a "iso\t''
epoch-s\t''
epoch-ms\t''
epoch-us\t''
epoch-ns\t''"
complete -c xs -n "__fish_xs_using_subcommand range" -s o -l output -d 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows' -r -F
complete -c xs -n "__fish_xs_using_subcommand range" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand range" -l fill -d 'With --every: also print buckets without rows (count 0, other aggregates empty)'
complete -c xs -n "__fish_xs_using_subcommand range" -l all-series -d 'With --agg or --ohlcv in a series database: fold every series together instead of one output row per series and bucket'
complete -c xs -n "__fish_xs_using_subcommand range" -l no-header -d 'Leave out the header line (csv, tsv)'
complete -c xs -n "__fish_xs_using_subcommand range" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand range" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand delete" -l series -d 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order' -r
complete -c xs -n "__fish_xs_using_subcommand delete" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand delete" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand delete" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand export" -l from -d 'Start, inclusive (ISO-8601 or epoch with a unit; without a zone, in the database\'s time zone); default: the first row' -r
complete -c xs -n "__fish_xs_using_subcommand export" -l to -d 'End, exclusive; default: after the last row' -r
complete -c xs -n "__fish_xs_using_subcommand export" -s o -l output -d 'Output file, `-` for stdout, or with --split a directory (created if missing)' -r -F
complete -c xs -n "__fish_xs_using_subcommand export" -l compress -d 'Compression of text output: zstd, gzip or none; default: from the file name\'s .zst or .gz. (Parquet compresses its column chunks with zstd itself.)' -r -f -a "zstd\t''
gzip\t''
none\t''"
complete -c xs -n "__fish_xs_using_subcommand export" -l level -d 'Compression level: zstd 1 fast … 19 small (default 3; negative levels are faster still), gzip 0 … 9 (default 6)' -r
complete -c xs -n "__fish_xs_using_subcommand export" -l split -d 'One file per year (or month, day), named after it: 2024.csv, 2024.csv.zst…, written in parallel into the --output directory. Periods without rows get no file' -r -f -a "year\t''
month\t''
day\t''"
complete -c xs -n "__fish_xs_using_subcommand export" -l where -d 'Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold' -r
complete -c xs -n "__fish_xs_using_subcommand export" -l series -d 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order' -r
complete -c xs -n "__fish_xs_using_subcommand export" -s f -l format -d 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file\'s extension, else csv' -r -f -a "csv\t''
tsv\t''
ndjson\t''
parquet\t''
arrow\t''"
complete -c xs -n "__fish_xs_using_subcommand export" -l columns -d 'Columns to print, in this order, e.g. time,price (name the time column to keep it)' -r
complete -c xs -n "__fish_xs_using_subcommand export" -l time-format -d 'iso (default: ISO-8601 UTC at the granularity\'s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as \'%Y-%m-%d %H:%M:%S%.3f\' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp' -r -f -a "iso\t''
epoch-s\t''
epoch-ms\t''
epoch-us\t''
epoch-ns\t''"
complete -c xs -n "__fish_xs_using_subcommand export" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand export" -l no-header -d 'Leave out the header line (csv, tsv)'
complete -c xs -n "__fish_xs_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand export" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand import" -l delimiter -d 'Field delimiter: one character, or `tab` (default: detected among `,` `;` tab `|`)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l skip-lines -d 'Skip N lines (a preamble) at the start of every input before the header (default: lines before a header whose field count differs from the rows\' are skipped)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l thousands -d 'The mark that groups thousands in numbers: `,` (`1,234.5`), `\'` (`1\'234.5`), `space` (`1 234,5`), `nbsp` (a no-break space), or `none` (default: detected from the first records; under a decimal comma, points group thousands anyway)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l null -d 'More values to read as null, comma-separated (`--null -200,-999`); in numeric columns a number also matches however it is written (`-200.0`, `-2e2`, `-200,0`). Empty fields, and in numeric and boolean columns `NA`, `N/A`, `null`, `NULL`, `None`, `#N/A`, `\\N`, `n/e`, a lone `.`, `-` or `?`, are null anyway (a row whose time is null is rejected)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l columns -d 'Without a header: the input\'s column names in order, each optionally with a type for a new database (`time,price:f64,side:str(4)`). With a header: types for a new database that replace the guessed ones (`symbol:str(8),qty:f32`)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l time-column -d 'The input column holding the time, or several joined with a space in the order given (`Date,Time`) (default: the database\'s time column, or a guess). Header text or its alias' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l date -d 'The date of times that carry none (`09:30:00`, or a number since midnight with --time-unit) (default: a date in the file name, such as `20131007_…`)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l timezone -d 'Time zone of times written without one: an IANA name (`America/New_York`) or an offset (`-05:00`) (default: UTC)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l dst -d 'With --timezone: place local times that a daylight-saving change makes ambiguous or skips at the earlier or the later instant (default: reject them)' -r -f -a "earlier\t''
later\t''"
complete -c xs -n "__fish_xs_using_subcommand import" -l time-unit -d 'Unit of epoch-number times: s, ms, us, ns (default: guessed from their magnitude)' -r -f -a "s\t''
ms\t''
us\t''
µs\t''
ns\t''"
complete -c xs -n "__fish_xs_using_subcommand import" -l time-format -d 'strftime pattern of the times, e.g. \'%d/%m/%Y %H:%M:%S\' (without a date it reads times of day), or `dmy`, `mdy`, `ymd`: the detected shapes with the date in that order, or `hhmmss`, `hhmmssmmm` (or `hhmmss` and 6 or 9 `f`): times of day as clock digits (`93000` is 09:30:00), `hhmm`: clock digits without seconds (`930` is 09:30), `quarter` (`1990Q1`, `Q1 1990`), or `excel`: a spreadsheet\'s serial days (`44197.75` is 2021-01-01 18:00, to the millisecond). A pattern without the day (`%Y-%m`, `%Y`) stores each month or year at its first day (default: detected — ISO-8601, epoch numbers, dates in year-month-day, day/month/year or month/day/year order with a time, compact YYYYMMDDHHMM…, clock digits, months `YYYY-MM` or `Jan 2021`, ISO weeks, quarters, years in a `Year` column)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l encoding -d 'Text encoding of the inputs when not UTF-8: utf-16le, utf-16be, windows-1252 (latin1), iso-8859-15, shift_jis… (default: UTF-8, or UTF-16 where a byte-order mark says so)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l granularity -d 'New database only: time step between slots (default: inferred)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l depth -d 'New database only: rows one timestamp can hold (default: inferred)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l layout -d 'New database only: storage layout, grid or bucket (default: inferred — grid for regular series, bucket for irregular or bursty ticks)' -r -f -a "grid\t''
bucket\t''"
complete -c xs -n "__fish_xs_using_subcommand import" -l bucket -d 'New database only: bucket width for the bucket layout (default: inferred)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l codec -d 'New database only: how the bucket layout stores rows: columnar (each column compressed; the default) or raw (as they are; the fastest point reads)' -r -f -a "raw\t''
columnar\t''"
complete -c xs -n "__fish_xs_using_subcommand import" -l partition -d 'New database only: year, month or day (default: the longest that fits)' -r -f -a "year\t''
month\t''
day\t''"
complete -c xs -n "__fish_xs_using_subcommand import" -l rejects -d 'Where rejected rows go (default: DB/rejects-<time>.csv, written only if needed)' -r -F
complete -c xs -n "__fish_xs_using_subcommand import" -l series-by -d 'New database: the columns that tell series apart (symbol, host); each series is stored on its own and rows are identified by (series, time). Default: inferred; `none`: one series' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l unique-by -d 'New database: the columns that identify a row among a series\' rows at one time (trade_id): a row whose key is stored replaces it. Default: inferred; `none`: no key' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l max-rejects -d 'Rejected rows allowed before exiting with status 4' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l threads -d 'Worker threads (default: one per core)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -l chunk-bytes -d 'Bytes of input per chunk (testing and tuning; default 1 MiB)' -r
complete -c xs -n "__fish_xs_using_subcommand import" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand import" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand import" -l header -d 'The first line is a header (default: detected — a first line that does not type like the rows below it is a header; into an existing database, one that names its columns)'
complete -c xs -n "__fish_xs_using_subcommand import" -l no-header -d 'The input has no header line; name its columns with --columns (default for an existing database: the time column, then its columns in order; for a new one: column_1, column_2…)'
complete -c xs -n "__fish_xs_using_subcommand import" -l decimal-comma -d 'Numbers are written with a decimal comma (`2,6`) (default: detected in files not separated by commas; a database created from such a file records it, and reads later files whose numbers do not show their mark, such as `1.500`, with a decimal comma)'
complete -c xs -n "__fish_xs_using_subcommand import" -l decimal-point -d 'Numbers are written with a decimal point (`2.6`, `1.500` is one and a half): the default, unless the file\'s numbers show a decimal comma or the database records one'
complete -c xs -n "__fish_xs_using_subcommand import" -l ignore-columns -d 'Skip input columns the database does not have (default: refuse them)'
complete -c xs -n "__fish_xs_using_subcommand import" -l update-columns -d 'Change only the columns the input has in the stored rows it meets: the row with the same unique key, or the one row stored at that time and series (default: an input must have every column, and its rows replace the stored rows of their times). Rows that were not stored are added with the other columns null'
complete -c xs -n "__fish_xs_using_subcommand import" -l floor-time -d 'Round times down to the granularity instead of rejecting misaligned ones'
complete -c xs -n "__fish_xs_using_subcommand import" -s q -l quiet -d 'Print nothing on success: no inference notes, no summary (errors, and warnings that call for action, still go to stderr)'
complete -c xs -n "__fish_xs_using_subcommand import" -l no-sync -d 'Skip the final fsync of the written files (faster; not durable across a power loss)'
complete -c xs -n "__fish_xs_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand import" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand schema" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand schema" -l json -d 'Print JSON instead of text'
complete -c xs -n "__fish_xs_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand schema" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand alter" -l add -d 'Add a column NAME of TYPE (any type create takes), nullable; repeatable' -r
complete -c xs -n "__fish_xs_using_subcommand alter" -l widen -d 'Widen column NAME to TYPE; repeatable' -r
complete -c xs -n "__fish_xs_using_subcommand alter" -l rename -d 'Rename column OLD to NEW; repeatable' -r
complete -c xs -n "__fish_xs_using_subcommand alter" -l timezone -d 'The zone later imports read times written without one in: an IANA name (`America/New_York`), an offset (`-05:00`) or UTC. Stored rows do not move' -r
complete -c xs -n "__fish_xs_using_subcommand alter" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand alter" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand alter" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand alter" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand stat" -l series -d 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order' -r
complete -c xs -n "__fish_xs_using_subcommand stat" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand stat" -s r -l recursive -d 'Audit every database found under the directories given (default: the current one): a line each, and totals. Symbolic links are not followed'
complete -c xs -n "__fish_xs_using_subcommand stat" -l json -d 'Print JSON (schema in docs/STAT.md) instead of a table'
complete -c xs -n "__fish_xs_using_subcommand stat" -l bytes -d 'Print sizes as exact byte counts instead of KiB/MiB/GiB'
complete -c xs -n "__fish_xs_using_subcommand stat" -l fast -d 'Grid layout: skip counting rows (no row data is read; rows, row bytes, fill, first and last are omitted). Bucket layout: no effect, its rows are counted from the bucket directory, which stat reads anyway (never the data file)'
complete -c xs -n "__fish_xs_using_subcommand stat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand stat" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand defrag" -l min-extents -d 'Rewrite only partitions with at least N fragmented extents; 0 rewrites every one' -r
complete -c xs -n "__fish_xs_using_subcommand defrag" -l codec -d 'Bucket layout: store records with this codec from now on (saved in xs.toml) and rewrite every partition of the other one: columnar (each column compressed) or raw' -r -f -a "raw\t''
columnar\t''"
complete -c xs -n "__fish_xs_using_subcommand defrag" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand defrag" -l wait -d 'When another process holds the writer lock, wait for it instead of failing with exit 5'
complete -c xs -n "__fish_xs_using_subcommand defrag" -l dry-run -d 'Report what would be rewritten and the space it needs; change nothing'
complete -c xs -n "__fish_xs_using_subcommand defrag" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand defrag" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand check" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand check" -l json -d 'Print JSON instead of text'
complete -c xs -n "__fish_xs_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xs -n "__fish_xs_using_subcommand check" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand generate" -s d -l db -d 'Database directory; default: the current directory, if it is a database' -r -F
complete -c xs -n "__fish_xs_using_subcommand generate" -s h -l help -d 'Print help'
complete -c xs -n "__fish_xs_using_subcommand generate" -s V -l version -d 'Print version'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "create" -d 'Create an empty database directory'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "put" -d 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "get" -d 'Print the rows stored at each TIME, in time order (CSV with a header by default)'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "range" -d 'Print every row with FROM <= time < TO, in time order (CSV with a header by default); with --agg or --ohlcv, one row of aggregates per --every bucket (or for the whole window)'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "delete" -d 'Delete the rows at FROM, or every row with FROM <= time < TO'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "export" -d 'Write the whole database, or FROM <= time < TO, to a file, stdout, or one file per year'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "import" -d 'Import CSV, Parquet or Arrow rows into a database: an upsert by timestamp'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "schema" -d 'Print the columns with their types, the time column and zone, layout, granularity, depth or bucket width, series and unique keys, partition period and format version'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "alter" -d 'Change the schema: add nullable columns, widen columns, rename columns; set the zone of imported local times'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "stat" -d 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "defrag" -d 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "check" -d 'Verify every slot, bucket record, directory entry and header of the database'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "generate" -d 'Print shell completions or the man page (used to build completions/ and docs/xs.1)'
complete -c xs -n "__fish_xs_using_subcommand help; and not __fish_seen_subcommand_from create put get range delete export import schema alter stat defrag check generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
