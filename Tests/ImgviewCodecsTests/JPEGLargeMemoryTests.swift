#if canImport(Glibc)
    import Glibc
    import ImgviewCodecs
    import Testing

    @Suite("libjpeg's large allocations")
    struct JPEGLargeMemoryTests {
        @Test func libjpegFindsOurHookBeforeItsOwn() throws {
            // What libjpeg's PLT call resolves to: the first definition in the process's global scope.
            let found = try #require(dlsym(nil, "jpeg_get_large"))
            let library = try #require(dlopen("libjpeg.so.62", RTLD_NOW | RTLD_NOLOAD), "libjpeg is linked")
            defer { dlclose(library) }
            let its = try #require(dlsym(library, "jpeg_get_large"))
            #expect(found != its, "the executable must export jpeg_get_large, or libjpeg keeps its own")
        }

        @Test func largeAllocationsAreUsableWholeAndFreed() throws {
            let size = 9 << 20
            let memory = try #require(jpegGetLarge(nil, size))
            memory.initializeMemory(as: UInt8.self, repeating: 7, count: size)
            #expect(memory.load(fromByteOffset: size - 1, as: UInt8.self) == 7)
            jpegFreeLarge(nil, memory, size)
        }
    }
#endif
