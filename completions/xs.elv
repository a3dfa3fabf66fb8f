
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
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Create an empty database directory'
            cand put 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
            cand get 'Print the rows stored at each TIME as CSV with a header, in time order'
            cand range 'Print every row with FROM <= time < TO as CSV with a header, in time order'
            cand delete 'Delete the rows at FROM, or every row with FROM <= time < TO'
            cand stat 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
            cand defrag 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
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
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;put'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --append 'Add the row after the rows already at TIME (needs --depth > 1) instead of replacing them'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;get'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;range'= {
            cand --limit 'Stop after N rows'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;delete'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;stat'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --json 'Print JSON (schema in docs/STAT.md) instead of a table'
            cand --bytes 'Print sizes as exact byte counts instead of KiB/MiB/GiB'
            cand --fast 'Skip counting rows (no data is read): rows, row bytes, fill, first and last are omitted'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;defrag'= {
            cand --min-extents 'Rewrite only partitions with at least N fragmented extents; 0 rewrites every one'
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --dry-run 'Report what would be rewritten and the space it needs; change nothing'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;generate'= {
            cand -d 'Database directory; default: the current directory, if it is a database'
            cand --db 'Database directory; default: the current directory, if it is a database'
            cand --wait 'When another process holds the writer lock, wait for it instead of failing with exit 5'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'xs;help'= {
            cand create 'Create an empty database directory'
            cand put 'Store one row at TIME, replacing the rows there (or adding after them with --append)'
            cand get 'Print the rows stored at each TIME as CSV with a header, in time order'
            cand range 'Print every row with FROM <= time < TO as CSV with a header, in time order'
            cand delete 'Delete the rows at FROM, or every row with FROM <= time < TO'
            cand stat 'Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation'
            cand defrag 'Rewrite fragmented partitions so that each data segment is one contiguous allocation'
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
        &'xs;help;stat'= {
        }
        &'xs;help;defrag'= {
        }
        &'xs;help;generate'= {
        }
        &'xs;help;help'= {
        }
    ]
    $completions[$command]
}
