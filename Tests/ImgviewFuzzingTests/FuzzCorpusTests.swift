import Foundation
import ImgviewFuzzing
import Testing

/// Every fuzz target over its seed corpus and over the inputs that once crashed it.
///
/// `Corpus/<target>/` holds small hand-made seeds and, named `crash-*`, each input libFuzzer found
/// a crash with, kept after the fix so the crash stays fixed. A finding here fails by crashing
/// the test process, with the target's precondition message.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    static func inputs(_ target: FuzzTarget) -> [URL] {
        let folder = corpus.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func corpusRunsWithoutAFinding(_ target: FuzzTarget) throws {
        let inputs = Self.inputs(target)
        #expect(inputs.count >= 3, "\(target.rawValue) has too few seeds to start a fuzzer from")
        for input in inputs {
            target.run([UInt8](try Data(contentsOf: input)))
        }
    }
}
