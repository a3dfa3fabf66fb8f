//! The FIEMAP ioctl: where a file's bytes sit on the device, as a list of extents.
//!
//! The request and reply structs mirror `linux/fiemap.h` field for field; they are kernel ABI in
//! host byte order and host layout (`#[repr(C)]`), so no byte swapping applies. A file may have
//! more extents than one request holds: the walk asks again from the end of the last extent
//! until the kernel flags the last one.

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;

/// `struct fiemap` without its trailing flexible array: 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct FiemapHeader {
    /// Logical byte offset at which to start mapping (in).
    fm_start: u64,
    /// Logical length of the mapping wanted (in).
    fm_length: u64,
    /// `FIEMAP_FLAG_*` (in/out).
    fm_flags: u32,
    /// Extents written to `fm_extents` (out).
    fm_mapped_extents: u32,
    /// Capacity of `fm_extents` (in).
    fm_extent_count: u32,
    fm_reserved: u32,
}

/// `struct fiemap_extent`: 56 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct FiemapExtent {
    fe_logical: u64,
    fe_physical: u64,
    fe_length: u64,
    fe_reserved64: [u64; 2],
    fe_flags: u32,
    fe_reserved: [u32; 3],
}

/// Extents asked for per ioctl: 512 × 56 bytes = 28 KiB per request.
const BATCH: usize = 512;

/// One request: the header immediately followed by its extent array, as the kernel expects.
#[repr(C)]
struct FiemapRequest {
    header: FiemapHeader,
    extents: [FiemapExtent; BATCH],
}

// The layout the kernel reads and writes; a mismatch must fail the build, not corrupt memory.
const _: () = assert!(std::mem::size_of::<FiemapHeader>() == 32);
const _: () = assert!(std::mem::size_of::<FiemapExtent>() == 56);
const _: () = assert!(std::mem::offset_of!(FiemapRequest, extents) == 32);

/// `FS_IOC_FIEMAP = _IOWR('f', 11, struct fiemap)`, encoded for this architecture.
const FS_IOC_FIEMAP: libc::Ioctl = libc::_IOWR::<FiemapHeader>(b'f' as u32, 11);
/// Flush dirty data first, so delayed allocations are reported where they really land.
const FIEMAP_FLAG_SYNC: u32 = 0x0000_0001;
/// The last extent of the file.
pub const FIEMAP_EXTENT_LAST: u32 = 0x0000_0001;
/// Allocated but never written (reads as zeros): preallocated space.
pub const FIEMAP_EXTENT_UNWRITTEN: u32 = 0x0000_0800;

/// One mapped extent, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub len_bytes: u64,
    pub flags: u32,
}

/// The extents of `file`, in logical order, exactly as the file system reports them.
/// `Ok(None)` when the file system does not implement FIEMAP (tmpfs, many network file systems).
pub fn extents(file: &File) -> io::Result<Option<Vec<Extent>>> {
    let mut request = Box::new(FiemapRequest {
        header: FiemapHeader::default(),
        extents: [FiemapExtent::default(); BATCH],
    });
    let mut found = Vec::new();
    let mut start = 0u64;
    loop {
        request.header = FiemapHeader {
            fm_start: start,
            fm_length: u64::MAX - start,
            fm_flags: FIEMAP_FLAG_SYNC,
            fm_mapped_extents: 0,
            fm_extent_count: BATCH as u32,
            fm_reserved: 0,
        };
        let request_ptr: *mut FiemapRequest = &mut *request;
        // SAFETY: `request_ptr` points to a live, exclusively borrowed `FiemapRequest` whose
        // layout is `struct fiemap` followed by `fm_extent_count` (= BATCH) extents, checked
        // by the assertions above; the kernel writes at most that many extents into it.
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP, request_ptr) };
        if rc < 0 {
            let err = io::Error::last_os_error();
            return match err.raw_os_error() {
                Some(libc::EOPNOTSUPP) | Some(libc::ENOTTY) if found.is_empty() => Ok(None),
                _ => Err(err),
            };
        }
        let mapped = (request.header.fm_mapped_extents as usize).min(BATCH);
        if mapped == 0 {
            break;
        }
        let mut last = false;
        for e in &request.extents[..mapped] {
            found.push(Extent {
                logical_bytes: e.fe_logical,
                physical_bytes: e.fe_physical,
                len_bytes: e.fe_length,
                flags: e.fe_flags,
            });
            last |= e.fe_flags & FIEMAP_EXTENT_LAST != 0;
        }
        let tail = &request.extents[mapped - 1];
        let next = tail.fe_logical.saturating_add(tail.fe_length);
        // Stop on the kernel's last flag, and on a reply that does not move forward.
        if last || next <= start {
            break;
        }
        start = next;
    }
    Ok(Some(found))
}

/// Counts extents, joining neighbours that continue each other both logically and physically
/// (ext4 caps one extent at 128 MiB, so a contiguous run of data can come back in pieces).
pub fn count_runs(extents: &[Extent]) -> u64 {
    let mut runs = 0u64;
    let mut prev: Option<&Extent> = None;
    for e in extents {
        let continues = prev.is_some_and(|p| {
            p.logical_bytes.checked_add(p.len_bytes) == Some(e.logical_bytes)
                && p.physical_bytes.checked_add(p.len_bytes) == Some(e.physical_bytes)
        });
        if !continues {
            runs += 1;
        }
        prev = Some(e);
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(logical: u64, physical: u64, len: u64) -> Extent {
        Extent {
            logical_bytes: logical,
            physical_bytes: physical,
            len_bytes: len,
            flags: 0,
        }
    }

    #[test]
    fn contiguous_pieces_count_once() {
        assert_eq!(count_runs(&[]), 0);
        // Logically and physically continuous: one run.
        assert_eq!(count_runs(&[ext(0, 100, 10), ext(10, 110, 5)]), 1);
        // Physically apart: two.
        assert_eq!(count_runs(&[ext(0, 100, 10), ext(10, 500, 5)]), 2);
        // A hole between them: two, even if physically adjacent.
        assert_eq!(count_runs(&[ext(0, 100, 10), ext(20, 110, 5)]), 2);
    }

    /// More extents than one request holds: the walk must ask again until the last one.
    #[test]
    fn walks_past_one_batch() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        let blocks = (2 * BATCH + 100) as u64;
        for i in 0..blocks {
            // Every other block: a hole between each pair, so each block is its own extent.
            file.write_all_at(&[1u8; 4096], i * 2 * 4096).unwrap();
        }
        file.sync_all().unwrap();
        let Some(list) = extents(&file).unwrap() else {
            return; // no FIEMAP here
        };
        assert_eq!(list.len() as u64, blocks);
        assert_eq!(count_runs(&list), blocks);
        assert!(list.windows(2).all(|w| w[0].logical_bytes < w[1].logical_bytes));
        assert_eq!(list.last().unwrap().logical_bytes, (blocks - 1) * 2 * 4096);
        assert!(list.last().unwrap().flags & FIEMAP_EXTENT_LAST != 0);
    }

    #[test]
    fn maps_a_written_file_or_reports_unsupported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 3 * 4096]).unwrap();
        let file = File::open(&path).unwrap();
        if let Some(list) = extents(&file).unwrap() {
            let mapped: u64 = list.iter().map(|e| e.len_bytes).sum();
            assert_eq!(mapped, 3 * 4096);
            assert!(list.last().unwrap().flags & FIEMAP_EXTENT_LAST != 0);
        }
    }
}
