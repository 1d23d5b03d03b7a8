import Foundation
import ImgviewFuzzing

#if IMGVIEW_LIBFUZZER
    // Built by scripts/fuzz.sh with `-sanitize=fuzzer,address -DIMGVIEW_LIBFUZZER`: libFuzzer drives
    // the target named by IMGVIEW_FUZZ_TARGET. SwiftPM links an executable's entry point under its own
    // name, so libFuzzer's `main` is not used; this one hands over to libFuzzer's driver.

    nonisolated(unsafe) private var selected = FuzzTarget.image

    @_silgen_name("LLVMFuzzerRunDriver")
    private func runDriver(
        _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    // libFuzzer's archive refers to this name, whichever main runs.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @main
    struct FuzzMain {
        static func main() {
            let name = ProcessInfo.processInfo.environment["IMGVIEW_FUZZ_TARGET"] ?? ""
            guard let target = FuzzTarget(rawValue: name) else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
                FileHandle.standardError.write(Data("imgview-fuzz: set IMGVIEW_FUZZ_TARGET to one of: \(names)\n".utf8))
                exit(2)
            }
            selected = target
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runDriver(&argc, &argv, testOneInput))
        }
    }
#else
    /// Without libFuzzer: runs a target over input files, to replay what the fuzzer found.
    @main
    struct FuzzMain {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
                FileHandle.standardError.write(Data("usage: imgview-fuzz \(names) FILE...\n".utf8))
                exit(2)
            }
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("imgview-fuzz: \(path): cannot be read\n".utf8))
                    exit(4)
                }
                target.run([UInt8](data))
            }
            print("\(arguments.count - 1) input(s) ran without a finding")
        }
    }
#endif
