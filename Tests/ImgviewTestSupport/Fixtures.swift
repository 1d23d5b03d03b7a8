import Crypto
import Foundation

/// The small images every test target reads (`Tests/ImgviewCodecsTests/Fixtures`), found from
/// this source file rather than the working directory or a bundle.
public enum Fixtures {
    public static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImgviewCodecsTests/Fixtures")

    public static func url(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }

    public static func path(_ name: String) -> String {
        url(name).path
    }

    public static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }
}

/// The repository's root, for the bundled assets (`Assets/`) and the documents.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The lower-case hex SHA-256 of `data`, as `sha256sum` and the cache print it.
public func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).hexString
}
