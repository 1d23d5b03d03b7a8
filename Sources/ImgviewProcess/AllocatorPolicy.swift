internal import CMalloc

/// How the process's allocator treats large blocks, set once at start-up by the executable,
/// beside the signal handlers: a setting of the whole process, whatever library allocates.
///
/// glibc serves a block of 128 KB or more with a mapping of its own, returned to the system when
/// it is freed, but each such block freed raises that threshold to the block's size (up to 32 MB).
/// Once libde265 or libjxl have freed their full-size planes, the next blocks of several megabytes
/// (a preview's canvas, the next library's tables) come from the heap or a thread's arena instead,
/// whose freed holes the process keeps, so a full-screen HEIC peaked far above what its buffers ever
/// held at once (DECISIONS.md, "glibc's sliding mmap threshold").
public enum AllocatorPolicy {
    /// The size from which blocks are mapped on their own: glibc's default, kept fixed.
    public static let mappedBlockThreshold: Int32 = 128 << 10

    /// Fixes the mapping threshold, so that large blocks always go back to the system when freed.
    public static func returnLargeBlocksToTheSystem() {
        _ = imgview_fix_mmap_threshold(mappedBlockThreshold)
    }
}
