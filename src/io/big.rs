//! Large zero-filled buffers backed by huge pages where the kernel offers them on request
//! (transparent huge pages in `madvise` mode, a common default): a buffer of hundreds of MiB
//! then costs a few hundred page faults instead of tens of thousands.

/// Buffers smaller than this are left to the allocator as they are.
const HUGE_MIN_BYTES: usize = 8 << 20;

/// A vector of `len` copies of `value`, its memory asked to be backed by huge pages before it
/// is first touched, and filled on every core (each thread faults in its own part).
pub fn filled<T: Clone + Send + Sync>(len: usize, value: T) -> Vec<T> {
    use rayon::iter::ParallelExtend;
    let mut v = with_capacity(len);
    v.par_extend(rayon::iter::repeat_n(value, len));
    v
}

/// `len` zero bytes: untouched fresh pages from the allocator (`calloc`), asked to be backed
/// by huge pages.
pub fn zeroed_bytes(len: usize) -> Vec<u8> {
    let v = vec![0u8; len];
    advise_huge(v.as_ptr() as usize, len);
    v
}

/// An empty vector with room for `len` `T`s, its memory asked to be backed by huge pages.
pub fn with_capacity<T>(len: usize) -> Vec<T> {
    let v = Vec::with_capacity(len);
    advise_huge(v.as_ptr() as usize, len * std::mem::size_of::<T>());
    v
}

/// Asks the kernel to back the pages of `bytes` from `start` not yet touched with huge pages.
/// Only a hint: where transparent huge pages are off, nothing changes.
fn advise_huge(start: usize, bytes: usize) {
    if bytes < HUGE_MIN_BYTES {
        return;
    }
    let page = 4096;
    let aligned = start.next_multiple_of(page);
    let end = (start + bytes) & !(page - 1);
    if end > aligned {
        // SAFETY: the range lies within one allocation; MADV_HUGEPAGE changes no contents.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE);
        }
    }
}
