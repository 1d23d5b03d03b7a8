#if canImport(Glibc)
    import Foundation
    import Glibc
    import ImgviewCodecs
    import Testing

    @Suite("libjpeg's large allocations")
    struct JPEGLargeMemoryTests {
        @Test func libjpegFindsOurHookBeforeItsOwn() throws {
            // What libjpeg's PLT call resolves to: the first definition in the process's global scope.
            let found = try #require(dlsym(nil, "jpeg_get_large"))
            // libjpeg is opened on first use (JPEGLibrary), as here.
            let library = try #require(dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL), "libjpeg is installed")
            defer { dlclose(library) }
            let its = try #require(dlsym(library, "jpeg_get_large"))
            #expect(found != its, "the executable must export jpeg_get_large, or libjpeg keeps its own")
        }

        @Test func largeAllocationsAreUsableWholeAndAskForHugePages() throws {
            let size = 9 << 20
            let memory = try #require(jpegGetLarge(nil, size))
            defer { jpegFreeLarge(nil, memory, size) }
            memory.initializeMemory(as: UInt8.self, repeating: 7, count: size)
            #expect(memory.load(fromByteOffset: size - 1, as: UInt8.self) == 7)
            guard access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0 else { return }
            // The first 2 MB boundary inside the allocation lies in a mapping marked for huge pages ("hg").
            let hugePage = 2 << 20
            let inside = UInt((Int(bitPattern: memory) + hugePage - 1) & ~(hugePage - 1))
            let flags = try #require(try Self.vmFlags(containing: inside), "no mapping holds the allocation")
            #expect(flags.contains("hg"), "VmFlags: \(flags.joined(separator: " "))")
        }

        /// The `VmFlags` of the mapping of this process that contains `address`, from /proc/self/smaps.
        static func vmFlags(containing address: UInt) throws -> [Substring]? {
            // Read to the end: a /proc file reports no size up front.
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
            defer { try? file.close() }
            let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
            var holds = false
            for line in smaps.split(separator: "\n") {
                if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
                    let low = UInt(line[..<dash], radix: 16), let high = UInt(line[line.index(after: dash)..<space], radix: 16)
                {
                    holds = low <= address && address < high
                } else if holds, line.hasPrefix("VmFlags:") {
                    return line.dropFirst("VmFlags:".count).split(separator: " ")
                }
            }
            return nil
        }
    }
#endif
