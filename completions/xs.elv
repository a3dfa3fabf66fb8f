
use builtin;
use str;

set edit:completion:arg-completer[xs] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'xs'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'xs'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'Writers (import, put, delete, defrag, alter): when another process holds the writer lock, wait for it instead of failing with exit 5. Also accepted after the subcommand'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Create an empty database directory'
            cand put 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
            cand get 'Print the rows stored at each TIME, in time order (CSV with a header by default)'
            cand range 'Print every row with FROM <= time < TO, in time order (CSV with a header by default); with --agg or --ohlcv, one row of aggregates per --every bucket (or for the whole window)'
            cand delete 'Delete the rows at FROM, or every row with FROM <= time < TO'
            cand export 'Write the whole database, or FROM <= time < TO, to a file, stdout, or one file per year'
            cand import 'Import CSV, Parquet or Arrow rows into a database: an upsert by timestamp'
            cand schema 'Print the columns with their types, the time column and zone, layout, granularity, depth or bucket width, series and unique keys, partition period and format version'
            cand alter 'Change the schema: add nullable columns, widen columns, rename columns; set the zone of imported local times'
            cand stat 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
            cand defrag 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
            cand check 'Verify every slot, bucket record, directory entry and header of the database'
            cand generate 'Print shell completions or the man page (used to build completions/ and docs/xs.1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xs;create'= {
            cand -g 'Time step between slots; must divide one day: 1ns 1us 1ms 10ms 1s 1m 1h 1d …'
            cand --granularity 'Time step between slots; must divide one day: 1ns 1us 1ms 10ms 1s 1m 1h 1d …'
            cand -c 'Columns as name:type, comma-separated, e.g. ''price:f64,qty:f64,side:str(4)'''
            cand --columns 'Columns as name:type, comma-separated, e.g. ''price:f64,qty:f64,side:str(4)'''
            cand --depth 'Rows one timestamp can hold (e.g. several trades in one millisecond)'
            cand --partition 'Time covered by one file; default: year, or month/day when a year file would be too large'
            cand --time-column 'Name of the time column in input and output headers'
            cand --layout 'Storage layout: grid (a slot per granularity step; regular series) or bucket (rows with exact times in fixed time buckets; bursty ticks, any number of rows per time)'
            cand --bucket 'Bucket width for --layout bucket: a multiple of the granularity that divides one day'
            cand --codec 'How --layout bucket stores a bucket''s rows: raw (as they are; the fastest reads) or columnar (each column compressed: a few bytes a row; use wide buckets, e.g. 1m)'
            cand --series-by 'Columns whose values tell series apart (symbol, host): each series is stored on its own, rows are identified by (series, time), and reads take --series'
            cand --unique-by 'Columns that identify a row among one series'' rows at one time (trade_id): an imported row with a stored key replaces it, a new key is added'
            cand --timezone 'Time zone that imports read times written without one in: an IANA name (`America/New_York`) or an offset (`-05:00`) (default: UTC). Recorded in the database, so every later import of such files places them alike; an import''s own --timezone, or a header that states a zone, decides for that import'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;put'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand --append 'Add the row after the rows already at TIME (needs --depth > 1) instead of replacing them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;get'= {
            cand --join 'With --asof: join the rows of FILE (`-`: stdin) with their as-of matches'
            cand --on 'With --join: the input column holding the times (default: the database''s time column, else one named time, timestamp, ts, datetime, date or t, else the first)'
            cand --time-unit 'With --join: the unit of epoch numbers without one in the input: s, ms, us or ns (default: from their magnitude)'
            cand --prefix 'With --join: the prefix of the appended column names (default: the database''s name)'
            cand --limit 'Stop after N rows'
            cand --within 'With --asof: look back at most DUR before each TIME (default: to the first partition)'
            cand --where 'Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold. With --asof, the latest timestamp that holds a row that passes'
            cand --series 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order'
            cand -f 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv'
            cand --format 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv'
            cand --columns 'Columns to print, in this order, e.g. time,price (name the time column to keep it)'
            cand --time-format 'iso (default: ISO-8601 UTC at the granularity''s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as ''%Y-%m-%d %H:%M:%S%.3f'' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp'
            cand -o 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows'
            cand --output 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --asof 'For each TIME, the rows of the latest timestamp at or before it (an as-of lookup)'
            cand --no-header 'Leave out the header line (csv, tsv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;range'= {
            cand --last 'The window from DUR before now (15m, 1h, 1d) onwards, instead of FROM and TO'
            cand --limit 'Stop after N rows (N buckets with --every)'
            cand --every 'Aggregate into buckets of DUR (1s, 1m, 5m, 1h, 1d, 1w; a multiple of the granularity), aligned on the epoch (weeks on Mondays), or of calendar months (1M, 3M, 12M; UTC); each row''s time is its bucket''s start. Needs --agg or --ohlcv'
            cand --agg 'Aggregates per bucket (without --every: one row for the whole window, timed FROM): count, first(c), last(c), min(c), max(c), sum(c), mean(c), stddev(c), vwap(price,qty), median(c), quantile(c,q) (0 ≤ q ≤ 1, interpolated; these two read every row)'
            cand --ohlcv 'Bars per bucket from a price and a quantity column: open,high,low,close,volume,count'
            cand --where 'Only rows that meet CONDITION: COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat --where or join with `and` for several, all of which must hold. Quote text with spaces or commas (''a b''); COL= matches nulls, which no comparison does'
            cand --series 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order'
            cand -f 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv'
            cand --format 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv'
            cand --columns 'Columns to print, in this order, e.g. time,price (name the time column to keep it)'
            cand --time-format 'iso (default: ISO-8601 UTC at the granularity''s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as ''%Y-%m-%d %H:%M:%S%.3f'' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp'
            cand -o 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows'
            cand --output 'Write to FILE (atomically: a temporary file renamed when complete) instead of stdout; its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --fill 'With --every: also print buckets without rows (count 0, other aggregates empty)'
            cand --all-series 'With --agg or --ohlcv in a series database: fold every series together instead of one output row per series and bucket'
            cand --no-header 'Leave out the header line (csv, tsv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;delete'= {
            cand --series 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;export'= {
            cand --from 'Start, inclusive (ISO-8601 or epoch with a unit; without a zone, in the database''s time zone); default: the first row'
            cand --to 'End, exclusive; default: after the last row'
            cand -o 'Output file, `-` for stdout, or with --split a directory (created if missing)'
            cand --output 'Output file, `-` for stdout, or with --split a directory (created if missing)'
            cand --compress 'Compression of text output: zstd, gzip or none; default: from the file name''s .zst or .gz. (Parquet compresses its column chunks with zstd itself.)'
            cand --level 'Compression level: zstd 1 fast … 19 small (default 3; negative levels are faster still), gzip 0 … 9 (default 6)'
            cand --split 'One file per year (or month, day), named after it: 2024.csv, 2024.csv.zst…, written in parallel into the --output directory. Periods without rows get no file'
            cand --where 'Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold'
            cand --series 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order'
            cand -f 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv'
            cand --format 'Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null), parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file). Default: from the -o file''s extension, else csv'
            cand --columns 'Columns to print, in this order, e.g. time,price (name the time column to keep it)'
            cand --time-format 'iso (default: ISO-8601 UTC at the granularity''s precision), epoch-s, epoch-ms, epoch-us, epoch-ns, or a strftime pattern such as ''%Y-%m-%d %H:%M:%S%.3f'' (UTC). Text formats only: Parquet and Arrow store a UTC timestamp'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --no-header 'Leave out the header line (csv, tsv)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;import'= {
            cand --delimiter 'Field delimiter: one character, or `tab` (default: detected among `,` `;` tab `|`)'
            cand --skip-lines 'Skip N lines (a preamble) at the start of every input before the header (default: lines before a header whose field count differs from the rows'' are skipped)'
            cand --thousands 'The mark that groups thousands in numbers: `,` (`1,234.5`), `''` (`1''234.5`), `space` (`1 234,5`), `nbsp` (a no-break space), or `none` (default: detected from the first records; under a decimal comma, points group thousands anyway)'
            cand --null 'More values to read as null, comma-separated (`--null -200,-999`); in numeric columns a number also matches however it is written (`-200.0`, `-2e2`, `-200,0`). Empty fields, and in numeric and boolean columns `NA`, `N/A`, `null`, `NULL`, `None`, `#N/A`, `\N`, `n/e`, a lone `.`, `-` or `?`, are null anyway (a row whose time is null is rejected)'
            cand --columns 'Without a header: the input''s column names in order, each optionally with a type for a new database (`time,price:f64,side:str(4)`). With a header: types for a new database that replace the guessed ones (`symbol:str(8),qty:f32`)'
            cand --time-column 'The input column holding the time, or several joined with a space in the order given (`Date,Time`) (default: the database''s time column, or a guess). Header text or its alias'
            cand --date 'The date of times that carry none (`09:30:00`, or a number since midnight with --time-unit) (default: a date in the file name, such as `20131007_…`)'
            cand --timezone 'Time zone of times written without one: an IANA name (`America/New_York`) or an offset (`-05:00`) (default: UTC)'
            cand --dst 'With --timezone: place local times that a daylight-saving change makes ambiguous or skips at the earlier or the later instant (default: reject them)'
            cand --time-unit 'Unit of epoch-number times: s, ms, us, ns (default: guessed from their magnitude)'
            cand --time-format 'strftime pattern of the times, e.g. ''%d/%m/%Y %H:%M:%S'' (without a date it reads times of day), or `dmy`, `mdy`, `ymd`: the detected shapes with the date in that order, or `hhmmss`, `hhmmssmmm` (or `hhmmss` and 6 or 9 `f`): times of day as clock digits (`93000` is 09:30:00), `hhmm`: clock digits without seconds (`930` is 09:30), `quarter` (`1990Q1`, `Q1 1990`), or `excel`: a spreadsheet''s serial days (`44197.75` is 2021-01-01 18:00, to the millisecond). A pattern without the day (`%Y-%m`, `%Y`) stores each month or year at its first day (default: detected — ISO-8601, epoch numbers, dates in year-month-day, day/month/year or month/day/year order with a time, compact YYYYMMDDHHMM…, clock digits, months `YYYY-MM` or `Jan 2021`, ISO weeks, quarters, years in a `Year` column)'
            cand --encoding 'Text encoding of the inputs when not UTF-8: utf-16le, utf-16be, windows-1252 (latin1), iso-8859-15, shift_jis… (default: UTF-8, or UTF-16 where a byte-order mark says so)'
            cand --granularity 'New database only: time step between slots (default: inferred)'
            cand --depth 'New database only: rows one timestamp can hold (default: inferred)'
            cand --layout 'New database only: storage layout, grid or bucket (default: inferred — grid for regular series, bucket for irregular or bursty ticks)'
            cand --bucket 'New database only: bucket width for the bucket layout (default: inferred)'
            cand --codec 'New database only: how the bucket layout stores rows: columnar (each column compressed; the default) or raw (as they are; the fastest point reads)'
            cand --partition 'New database only: year, month or day (default: the longest that fits)'
            cand --rejects 'Where rejected rows go (default: DB/rejects-<time>.csv, written only if needed)'
            cand --series-by 'New database: the columns that tell series apart (symbol, host); each series is stored on its own and rows are identified by (series, time). Default: inferred; `none`: one series'
            cand --unique-by 'New database: the columns that identify a row among a series'' rows at one time (trade_id): a row whose key is stored replaces it. Default: inferred; `none`: no key'
            cand --max-rejects 'Rejected rows allowed before exiting with status 4'
            cand --threads 'Worker threads (default: one per core)'
            cand --chunk-bytes 'Bytes of input per chunk (testing and tuning; default 1 MiB)'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand --header 'The first line is a header (default: detected — a first line that does not type like the rows below it is a header; into an existing database, one that names its columns)'
            cand --no-header 'The input has no header line; name its columns with --columns (default for an existing database: the time column, then its columns in order; for a new one: column_1, column_2…)'
            cand --decimal-comma 'Numbers are written with a decimal comma (`2,6`) (default: detected in files not separated by commas; a database created from such a file records it, and reads later files whose numbers do not show their mark, such as `1.500`, with a decimal comma)'
            cand --decimal-point 'Numbers are written with a decimal point (`2.6`, `1.500` is one and a half): the default, unless the file''s numbers show a decimal comma or the database records one'
            cand --ignore-columns 'Skip input columns the database does not have (default: refuse them)'
            cand --update-columns 'Change only the columns the input has in the stored rows it meets: the row with the same unique key, or the one row stored at that time and series (default: an input must have every column, and its rows replace the stored rows of their times). Rows that were not stored are added with the other columns null'
            cand --floor-time 'Round times down to the granularity instead of rejecting misaligned ones'
            cand -q 'Print nothing on success: no inference notes, no summary (errors, and warnings that call for action, still go to stderr)'
            cand --quiet 'Print nothing on success: no inference notes, no summary (errors, and warnings that call for action, still go to stderr)'
            cand --no-sync 'Skip the final fsync of the written files (faster; not durable across a power loss)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;schema'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --json 'Print JSON instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;alter'= {
            cand --add 'Add a column NAME of TYPE (any type create takes), nullable; repeatable'
            cand --widen 'Widen column NAME to TYPE; repeatable'
            cand --rename 'Rename column OLD to NEW; repeatable'
            cand --timezone 'The zone later imports read times written without one in: an IANA name (`America/New_York`), an offset (`-05:00`) or UTC. Stored rows do not move'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;stat'= {
            cand --series 'Only these series (values of the series key; a key of several columns joins them with `:`, and a value that holds `:` is read the one way that names a stored series). Repeatable, or comma-separated; a value that holds a comma is taken whole when a series of that value is stored. Default: every series, merged in time order'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand -r 'Audit every database found under the directories given (default: the current one): a line each, and totals. Symbolic links are not followed'
            cand --recursive 'Audit every database found under the directories given (default: the current one): a line each, and totals. Symbolic links are not followed'
            cand --json 'Print JSON (schema in docs/STAT.md) instead of a table'
            cand --bytes 'Print sizes as exact byte counts instead of KiB/MiB/GiB'
            cand --fast 'Grid layout: skip counting rows (no row data is read; rows, row bytes, fill, first and last are omitted). Bucket layout: no effect, its rows are counted from the bucket directory, which stat reads anyway (never the data file)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;defrag'= {
            cand --min-extents 'Rewrite only partitions with at least N fragmented extents; 0 rewrites every one'
            cand --codec 'Bucket layout: store records with this codec from now on (saved in xs.toml) and rewrite every partition of the other one: columnar (each column compressed) or raw'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand --dry-run 'Report what would be rewritten and the space it needs; change nothing'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;check'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --json 'Print JSON instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;generate'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;help'= {
            cand create 'Create an empty database directory'
            cand put 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
            cand get 'Print the rows stored at each TIME, in time order (CSV with a header by default)'
            cand range 'Print every row with FROM <= time < TO, in time order (CSV with a header by default); with --agg or --ohlcv, one row of aggregates per --every bucket (or for the whole window)'
            cand delete 'Delete the rows at FROM, or every row with FROM <= time < TO'
            cand export 'Write the whole database, or FROM <= time < TO, to a file, stdout, or one file per year'
            cand import 'Import CSV, Parquet or Arrow rows into a database: an upsert by timestamp'
            cand schema 'Print the columns with their types, the time column and zone, layout, granularity, depth or bucket width, series and unique keys, partition period and format version'
            cand alter 'Change the schema: add nullable columns, widen columns, rename columns; set the zone of imported local times'
            cand stat 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
            cand defrag 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
            cand check 'Verify every slot, bucket record, directory entry and header of the database'
            cand generate 'Print shell completions or the man page (used to build completions/ and docs/xs.1)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xs;help;create'= {
        }
        &'xs;help;put'= {
        }
        &'xs;help;get'= {
        }
        &'xs;help;range'= {
        }
        &'xs;help;delete'= {
        }
        &'xs;help;export'= {
        }
        &'xs;help;import'= {
        }
        &'xs;help;schema'= {
        }
        &'xs;help;alter'= {
        }
        &'xs;help;stat'= {
        }
        &'xs;help;defrag'= {
        }
        &'xs;help;check'= {
        }
        &'xs;help;generate'= {
        }
        &'xs;help;help'= {
        }
    ]
    $completions[$command]
}
