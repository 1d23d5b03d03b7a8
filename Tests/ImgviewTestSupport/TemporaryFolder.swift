import Foundation

/// A fresh, empty temporary folder; the caller removes it.
public func temporaryFolder(prefix: String = "imgview-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
