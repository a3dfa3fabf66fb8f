//! Output shared by `get`, `range` and `export`: the options (format, projection, time format,
//! header), the choice of format from `--format` or the file name, where the bytes go (stdout,
//! or a file written atomically), and the one writer per format that every command uses.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use xs::db::config::Config;
use xs::io::columnar::{ColumnarWriter, Container, WriteError};
use xs::io::output::{Format, OutputOptions, RowCache, RowFormatter, TimeFormat};
use xs::io::stream::{write_range_where, Compression};
use xs::query::filter::Filter;
use xs::{Database, Error};

use super::Output;
use crate::exit::{CliResult, Failure, ERROR};

#[derive(clap::Args, Debug)]
pub struct FormatArgs {
    /// Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null),
    /// parquet, or arrow (an Arrow IPC stream on a pipe, the IPC file format in a .arrow file).
    /// Default: from the -o file's extension, else csv.
    #[arg(short = 'f', long, value_name = "FORMAT", value_parser = FORMATS)]
    pub format: Option<OutFormat>,

    /// Columns to print, in this order, e.g. time,price (name the time column to keep it).
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub columns: Option<Vec<String>>,

    /// iso (default: ISO-8601 UTC at the granularity's precision), epoch-s, epoch-ms, epoch-us,
    /// epoch-ns, or a strftime pattern such as '%Y-%m-%d %H:%M:%S%.3f' (UTC). Text formats
    /// only: Parquet and Arrow store a UTC timestamp.
    #[arg(long, value_name = "FMT", value_parser = TIME_FORMATS)]
    pub time_format: Option<TimeFormat>,

    /// Leave out the header line (csv, tsv).
    #[arg(long)]
    pub no_header: bool,
}

/// `-o FILE` for `get` and `range` (export has its own, which also takes a directory).
#[derive(clap::Args, Debug)]
pub struct OutputFileArgs {
    /// Write to FILE (atomically: a temporary file renamed when complete) instead of stdout;
    /// its extension picks the format unless --format is given: .csv .tsv .ndjson .jsonl
    /// (each optionally .gz or .zst), .parquet, .arrow, .arrows.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Where output goes, for choosing its format.
#[derive(Clone, Copy, Debug)]
pub enum To<'a> {
    Stdout,
    File(&'a Path),
    /// `export --split`: files named by the writer's extension.
    Directory,
}

/// A format `--format` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    Text(Format),
    Parquet,
    Arrow,
}

const FORMAT_NAMES: &str = "csv, tsv, ndjson, parquet, arrow";

const EXTENSIONS: &str =
    ".csv, .tsv, .ndjson, .jsonl (each optionally .gz or .zst), .parquet, .arrow, .arrows";

fn parse_format(text: &str) -> Result<OutFormat, String> {
    match text {
        "parquet" => Ok(OutFormat::Parquet),
        "arrow" => Ok(OutFormat::Arrow),
        _ => Format::parse(text)
            .map(OutFormat::Text)
            .ok_or_else(|| format!("unknown format `{text}`: use one of {FORMAT_NAMES}")),
    }
}

/// What a file name's extension asks for: its format (with `.arrows`, the stream container)
/// and its compression.
fn from_extension(name: &str) -> Option<(OutFormat, Option<Container>, Option<&'static str>)> {
    let lower = name.to_ascii_lowercase();
    let (rest, compression) = if let Some(rest) = lower.strip_suffix(".zst") {
        (rest, Some("zstd"))
    } else if let Some(rest) = lower.strip_suffix(".gz") {
        (rest, Some("gzip"))
    } else {
        (lower.as_str(), None)
    };
    let (_, ext) = rest.rsplit_once('.')?;
    let (format, container) = match ext {
        "parquet" => (OutFormat::Parquet, Some(Container::Parquet)),
        "arrow" | "feather" => (OutFormat::Arrow, Some(Container::ArrowFile)),
        "arrows" => (OutFormat::Arrow, Some(Container::ArrowStream)),
        _ => (OutFormat::Text(Format::parse(ext)?), None),
    };
    Some((format, container, compression))
}

/// How rows are written: text through a formatter (maybe compressed), or columnar.
pub enum Writer {
    Text {
        // Boxed: a formatter is several times the size of the columnar variant.
        formatter: Box<RowFormatter>,
        compression: Compression,
    },
    Columnar {
        container: Container,
        columns: Option<Vec<String>>,
    },
}

/// What the rows come from.
pub enum Source<'a> {
    /// Every row of `[from, to)` that passes the filter, at most `limit`.
    Range {
        db: &'a Database,
        from_ns: i64,
        to_ns: i64,
        filter: Option<&'a Filter>,
        limit: u64,
    },
    /// Rows already read, in order, with their times.
    Rows(&'a mut dyn Iterator<Item = (i64, &'a [u8])>),
}

/// A failed write of rows: reading the database, writing the sink, or encoding.
enum Fail {
    Read(Error),
    Write(io::Error),
    Encode(String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Read(e)
    }
}

impl From<WriteError> for Fail {
    fn from(e: WriteError) -> Fail {
        match e {
            WriteError::Io(e) => Fail::Write(e),
            WriteError::Encode(text) => Fail::Encode(text),
            WriteError::Read(e) => Fail::Read(e),
        }
    }
}

impl FormatArgs {
    /// The text formatter these options ask for; `default_format` when no --format was given.
    pub fn formatter(&self, config: &Config, default_format: Format) -> CliResult<RowFormatter> {
        let format = match self.format {
            None => default_format,
            Some(OutFormat::Text(format)) => format,
            Some(OutFormat::Parquet | OutFormat::Arrow) => {
                return Err(Failure::usage(
                    "aggregates and as-of joins print text: use --format csv, tsv or ndjson \
                     (Parquet and Arrow output hold stored rows: `range` without --every/--agg, \
                     `get`, `export`)",
                ))
            }
        };
        self.text_formatter(config, format)
    }

    fn text_formatter(&self, config: &Config, format: Format) -> CliResult<RowFormatter> {
        let options = OutputOptions {
            format,
            time_format: self.time_format.clone().unwrap_or(TimeFormat::Iso),
            columns: self.columns.clone(),
            header: !self.no_header,
        };
        RowFormatter::new(config, &options).map_err(Failure::usage)
    }

    /// The writer for rows going `to` a file, stdout or a directory: the format is --format, else
    /// the file's extension (an unknown one is an error, never CSV), else CSV on stdout.
    /// `compression` is --compress when given (`Some(None)` is `--compress none`).
    pub fn writer(
        &self,
        config: &Config,
        to: To,
        compression: Option<Compression>,
        gzip_level: u32,
        zstd_level: i32,
    ) -> CliResult<Writer> {
        let named = match to {
            To::Stdout | To::Directory => None,
            To::File(path) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                match from_extension(&name) {
                    Some(found) => Some(found),
                    None if self.format.is_some() => None,
                    None => {
                        return Err(Failure::usage(format!(
                            "cannot tell the output format from the name `{}`: use one of the \
                             extensions {EXTENSIONS}, or give --format ({FORMAT_NAMES}), which \
                             overrides the extension",
                            path.display()
                        )))
                    }
                }
            }
        };
        let format = self
            .format
            .or(named.map(|(f, _, _)| f))
            .unwrap_or(OutFormat::Text(Format::Csv));
        let compression = compression.unwrap_or(match named.and_then(|(_, _, c)| c) {
            Some("zstd") => Compression::Zstd { level: zstd_level },
            Some(_) => Compression::Gzip { level: gzip_level },
            None => Compression::None,
        });
        let container = match format {
            OutFormat::Text(format) => {
                return Ok(Writer::Text {
                    formatter: Box::new(self.text_formatter(config, format)?),
                    compression,
                })
            }
            OutFormat::Parquet => Container::Parquet,
            OutFormat::Arrow => match named {
                Some((_, Some(Container::ArrowStream), _)) => Container::ArrowStream,
                _ if matches!(to, To::Stdout) => Container::ArrowStream,
                _ => Container::ArrowFile,
            },
        };
        let what = if container == Container::Parquet {
            "Parquet"
        } else {
            "Arrow"
        };
        if compression != Compression::None {
            return Err(Failure::usage(format!(
                "{what} output is not compressed as a whole: drop the .gz/.zst and --compress \
                 (Parquet compresses each column chunk with zstd itself)"
            )));
        }
        if self.time_format.is_some() {
            return Err(Failure::usage(format!(
                "--time-format is for text output; {what} stores time as a UTC timestamp at the \
                 database's precision"
            )));
        }
        if matches!(to, To::Stdout) && io::stdout().is_terminal() {
            return Err(Failure::usage(format!(
                "not writing binary {what} to a terminal: redirect it (> out.{}), pipe it into a \
                 reader, or give -o FILE",
                if container == Container::Parquet {
                    "parquet"
                } else {
                    "arrow"
                }
            )));
        }
        // Check the columns now, before a file is created.
        xs::io::columnar::BatchBuilder::new(config, self.columns.as_deref(), container, 1)
            .map_err(Failure::usage)?;
        Ok(Writer::Columnar {
            container,
            columns: self.columns.clone(),
        })
    }
}

impl Writer {
    /// The file extension of this writer's output (for `export --split`).
    pub fn extension(&self) -> String {
        match self {
            Writer::Text {
                formatter,
                compression,
            } => match compression {
                Compression::None => formatter.format().name().to_string(),
                Compression::Zstd { .. } => format!("{}.zst", formatter.format().name()),
                Compression::Gzip { .. } => format!("{}.gz", formatter.format().name()),
            },
            Writer::Columnar { container, .. } => match container {
                Container::Parquet => "parquet".into(),
                Container::ArrowFile => "arrow".into(),
                Container::ArrowStream => "arrows".into(),
            },
        }
    }

    pub fn is_text(&self) -> bool {
        matches!(self, Writer::Text { .. })
    }

    /// Writes the rows of `source` to `output` (a file, written atomically) or stdout.
    pub fn write(&self, config: &Config, source: Source, output: Option<&Path>) -> CliResult<u64> {
        match output {
            Some(path) => self.to_file(config, source, path, true),
            None => self.to_stdout(config, source),
        }
    }

    /// Writes the rows of `source` to stdout. Returns the rows written.
    pub fn to_stdout(&self, config: &Config, source: Source) -> CliResult<u64> {
        let mut out = Output::new();
        let result = self.emit(config, source, &mut out).and_then(|rows| {
            Write::flush(&mut out).map_err(Fail::Write)?;
            Ok(rows)
        });
        result.map_err(|e| match e {
            Fail::Read(e) => Failure::from(e),
            Fail::Write(e) => Failure::output(e),
            Fail::Encode(text) => Failure::new(ERROR, format!("cannot encode the output: {text}")),
        })
    }

    /// Writes the rows of `source` to `path` through a temporary file in the same directory,
    /// renamed into place when complete; with `keep_empty` false, no file is left when there
    /// are no rows. Returns the rows written.
    pub fn to_file(&self, config: &Config, source: Source, path: &Path, keep_empty: bool) -> CliResult<u64> {
        let mut file = AtomicFile::create(path)?;
        let result = self.emit(config, source, &mut LargeWritesThrough(&mut file.out));
        let rows = result.map_err(|e| match e {
            Fail::Read(e) => Failure::from(e),
            Fail::Write(e) => Failure::from(Error::io("write", &file.tmp, e)),
            Fail::Encode(text) => Failure::new(ERROR, format!("cannot encode {}: {text}", path.display())),
        })?;
        if rows > 0 || keep_empty {
            file.commit()?;
        }
        Ok(rows)
    }

    /// The one output path per format: every command's rows go through here.
    fn emit<W: Write + Send>(&self, config: &Config, source: Source, sink: &mut W) -> Result<u64, Fail> {
        match self {
            Writer::Text {
                formatter,
                compression,
            } => {
                let mut header = Vec::new();
                formatter.header(&mut header);
                if !header.is_empty() {
                    sink.write_all(&compression.encode(&header)?)
                        .map_err(Fail::Write)?;
                }
                match source {
                    Source::Range {
                        db,
                        from_ns,
                        to_ns,
                        filter,
                        limit,
                    } => write_range_where(
                        db,
                        from_ns,
                        to_ns,
                        filter,
                        formatter,
                        limit,
                        *compression,
                        &mut |bytes: &[u8]| sink.write_all(bytes).map_err(Fail::Write),
                    ),
                    Source::Rows(rows) => {
                        let mut buf = Vec::new();
                        let mut cache = RowCache::default();
                        let mut n = 0u64;
                        for (t_ns, row) in rows {
                            formatter.row_cached(&mut buf, t_ns, row, &mut cache)?;
                            n += 1;
                            if buf.len() >= 1 << 20 {
                                sink.write_all(&compression.encode(&buf)?).map_err(Fail::Write)?;
                                buf.clear();
                            }
                        }
                        if !buf.is_empty() {
                            sink.write_all(&compression.encode(&buf)?).map_err(Fail::Write)?;
                        }
                        Ok(n)
                    }
                }
            }
            Writer::Columnar { container, columns } => {
                let mut writer = ColumnarWriter::new(config, columns.as_deref(), *container, &mut *sink)?;
                match source {
                    Source::Range {
                        db,
                        from_ns,
                        to_ns,
                        filter,
                        limit,
                    } => writer.write_range(db, (from_ns, to_ns), filter, limit)?,
                    Source::Rows(rows) => {
                        for (t_ns, row) in rows {
                            writer.push(t_ns, row)?;
                        }
                    }
                }
                Ok(writer.finish()?)
            }
        }
    }
}

/// A file written under a temporary name (created exclusively) in its directory, fsynced and
/// renamed into place by `commit`; dropped uncommitted, the temporary file is removed. A device,
/// a pipe or an open descriptor is written in place; a symbolic link stays a link: its target is
/// the file replaced.
pub struct AtomicFile {
    out: BufWriter<File>,
    tmp: PathBuf,
    path: PathBuf,
    committed: bool,
    /// Written straight into `path`, a device or a pipe: nothing to sync, rename or remove.
    in_place: bool,
}

/// Writes of at least this many bytes bypass a file's buffer: a read-out job's formatted
/// text (a few hundred KiB) goes to the file as it is, not copied into the buffer first.
const WRITE_THROUGH_BYTES: usize = 128 << 10;

/// A file's buffered writer whose large writes go straight to the file (after what is
/// buffered), and small ones (headers, Arrow and Parquet pieces) are collected as before.
struct LargeWritesThrough<'a>(&'a mut BufWriter<File>);

impl Write for LargeWritesThrough<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.len() < WRITE_THROUGH_BYTES {
            return self.0.write_all(bytes);
        }
        self.0.flush()?;
        self.0.get_mut().write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Where `-o PATH` goes, once its symbolic links are followed.
enum Target {
    /// A device, a pipe, a socket, or an open descriptor (`/dev/stdout`, `/proc/self/fd/N`,
    /// whatever it refers to): written through, never replaced.
    Through,
    /// A regular file, or none yet, at this path (the last link's target): replaced atomically.
    Replace(PathBuf),
}

/// Linux's MAXSYMLINKS: more links than this is a loop.
const MAX_LINKS: usize = 40;

/// Follows the links of `path` one at a time (a rename would replace a link with a regular
/// file: `-o /dev/stdout` with stdout on a file lost the rows and replaced the link).
fn target_of(path: &Path) -> CliResult<Target> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        // /proc's links are descriptors, not names: the file they lead to may be one the
        // shell opened for us (`> out.csv`), and replacing it would lose the rows. Its
        // directory is resolved too: `/dev/fd/1` is `/proc/self/fd/1`.
        if fs::canonicalize(parent_of(&at)).is_ok_and(|dir| dir.starts_with("/proc")) {
            return Ok(Target::Through);
        }
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&at).map_err(|e| Error::io("read the link", &at, e))?;
                // A relative link is relative to its own directory; an absolute one replaces it.
                at = parent_of(&at).join(link);
            }
            Ok(meta) if !meta.is_file() && !meta.is_dir() => return Ok(Target::Through),
            _ => return Ok(Target::Replace(at)),
        }
    }
    Err(Failure::usage(format!(
        "-o {}: more than {MAX_LINKS} symbolic links, probably a loop; give the file itself",
        path.display()
    )))
}

/// Opens `path` (a device, a pipe or a descriptor) to write through it. When it is our own
/// stdout (`-o /dev/stdout`), stdout itself is written: at the shell's offset, so `>> log`
/// appends and a `{ …; xs …; } > f` group keeps its order.
fn open_through(path: &Path) -> CliResult<File> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::io("open", path, e))?;
    let same = |a: &fs::Metadata, b: &fs::Metadata| a.dev() == b.dev() && a.ino() == b.ino();
    if let (Ok(ours), Ok(stdout)) = (file.metadata(), io::stdout().as_fd().try_clone_to_owned()) {
        let stdout = File::from(stdout);
        if ours.is_file() && stdout.metadata().is_ok_and(|m| same(&m, &ours)) {
            return Ok(stdout);
        }
    }
    Ok(file)
}

impl AtomicFile {
    pub fn create(path: &Path) -> CliResult<AtomicFile> {
        let file_name = path
            .file_name()
            .ok_or_else(|| Failure::usage(format!("-o {}: give a file name", path.display())))?;
        let target = match target_of(path)? {
            // A device or a pipe (`-o /dev/null`, a FIFO) is written in place too: a rename
            // would replace it with a regular file (it replaced this machine's /dev/null).
            Target::Through => {
                return Ok(AtomicFile {
                    out: BufWriter::with_capacity(1 << 20, open_through(path)?),
                    tmp: path.to_path_buf(),
                    path: path.to_path_buf(),
                    committed: false,
                    in_place: true,
                });
            }
            Target::Replace(target) => target,
        };
        let parent = parent_of(&target);
        if !parent.is_dir() {
            return Err(Failure::usage(format!(
                "cannot write {}: directory {} does not exist; create it or choose another -o",
                path.display(),
                parent.display()
            )));
        }
        let target_name = target.file_name().unwrap_or(file_name);
        let tmp = target.with_file_name(format!(
            ".{}.{}.tmp",
            target_name.to_string_lossy(),
            std::process::id()
        ));
        // Exclusive: never write through a file (or a link) someone else put there.
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io("create", &tmp, e))?;
        Ok(AtomicFile {
            out: BufWriter::with_capacity(1 << 20, file),
            tmp,
            path: target,
            committed: false,
            in_place: false,
        })
    }

    /// Flushes, fsyncs, and renames the file into place (then fsyncs its directory): a finished
    /// file survives a crash once it has its real name.
    pub fn commit(mut self) -> CliResult {
        self.out.flush().map_err(|e| Error::io("write", &self.tmp, e))?;
        if self.in_place {
            self.committed = true;
            return Ok(());
        }
        self.out
            .get_ref()
            .sync_all()
            .map_err(|e| Error::io("sync", &self.tmp, e))?;
        fs::rename(&self.tmp, &self.path).map_err(|e| Error::io("rename into", &self.path, e))?;
        self.committed = true;
        if let Ok(dir) = File::open(parent_of(&self.path)) {
            // Best effort: the rename is done; a directory that cannot be synced changes nothing.
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed && !self.in_place {
            // Best effort: the temporary file is ours and incomplete (or empty).
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// A value parser that also names the values completions should offer: `--time-format`'s
/// presets (any strftime pattern is accepted too) and `--format`'s names.
#[derive(Clone)]
struct Offering<T: Clone + Send + Sync + 'static> {
    parse: fn(&str) -> Result<T, String>,
    offers: &'static [&'static str],
}

const TIME_FORMATS: Offering<TimeFormat> = Offering {
    parse: TimeFormat::parse,
    offers: &["iso", "epoch-s", "epoch-ms", "epoch-us", "epoch-ns"],
};

const FORMATS: Offering<OutFormat> = Offering {
    parse: parse_format,
    offers: &["csv", "tsv", "ndjson", "parquet", "arrow"],
};

impl<T: Clone + Send + Sync + 'static> clap::builder::TypedValueParser for Offering<T> {
    type Value = T;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let invalid = |e: String| clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{e}\n"));
        let text = value
            .to_str()
            .ok_or_else(|| invalid(format!("`{}` is not UTF-8", value.to_string_lossy())))?;
        (self.parse)(text).map_err(invalid)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.offers.iter().map(|v| clap::builder::PossibleValue::new(*v)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small writes are buffered and large ones go straight to the file, in the order written.
    #[test]
    fn large_writes_go_through_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let pieces: Vec<Vec<u8>> = [10, WRITE_THROUGH_BYTES, 1, WRITE_THROUGH_BYTES + 7, 3 << 20, 5, 0]
            .iter()
            .enumerate()
            .map(|(k, &len)| vec![b'a' + k as u8; len])
            .collect();
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path).unwrap());
        let mut through = LargeWritesThrough(&mut out);
        for piece in &pieces {
            through.write_all(piece).unwrap();
        }
        through.flush().unwrap();
        drop(out);
        assert_eq!(fs::read(&path).unwrap(), pieces.concat());
    }
}
