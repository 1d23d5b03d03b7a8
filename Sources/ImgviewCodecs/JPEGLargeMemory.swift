#if canImport(Glibc)
    internal import CJPEG
    import Glibc

    /// libjpeg's hook for its large allocations (`jmemsys.h`: a build supplies its own
    /// `jpeg_get_large`), which the executable provides in place of the library's plain `malloc`.
    ///
    /// A progressive JPEG decoded at more than 1/8 keeps every DCT coefficient of the whole image
    /// until its last scan, tens of megabytes touched once; asking for transparent huge pages
    /// there saves most of their page faults (DECISIONS.md, "Pixel previews: decoded with room to
    /// spare"). Smaller allocations are left alone. Public so that the linker exports it for
    /// libjpeg to find; nothing in Swift needs to call it.
    @_cdecl("jpeg_get_large")
    public func jpegGetLarge(_ info: OpaquePointer?, _ size: Int) -> UnsafeMutableRawPointer? {
        guard let memory = malloc(size) else { return nil }
        let hugePage = 2 << 20
        if size >= 4 * hugePage {
            let start = (Int(bitPattern: memory) + hugePage - 1) & ~(hugePage - 1)
            let end = (Int(bitPattern: memory) + size) & ~(hugePage - 1)
            if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE) }
        }
        return memory
    }

    /// The counterpart of `jpegGetLarge`.
    @_cdecl("jpeg_free_large")
    public func jpegFreeLarge(_ info: OpaquePointer?, _ memory: UnsafeMutableRawPointer?, _ size: Int) {
        free(memory)
    }

    /// libjpeg's hook for a virtual array larger than `max_memory_to_use` allows in memory
    /// (`jmemsys.h`), which Debian's build leaves failing ("Backing store not supported"): its
    /// rows go to an unnamed temporary file, so a progressive JPEG's coefficients need not stay
    /// resident while its output is made beside them (DECISIONS.md, "Pixel previews at full
    /// screen"). Only a session that sets the limit (`JPEGSession.spillCoefficients`) gets here.
    @_cdecl("jpeg_open_backing_store")
    public func jpegOpenBackingStore(_ info: UnsafeMutableRawPointer?, _ store: UnsafeMutableRawPointer?, _ total: Int) {
        imgview_jpeg_open_backing_store(
            info?.assumingMemoryBound(to: jpeg_common_struct.self), store?.assumingMemoryBound(to: imgview_jpeg_backing_store.self))
    }
#endif
