#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

// Local paths are bytes, and on Linux need not be UTF-8 (a name from another system, a camera, an
// old archive). Foundation's `URL(fileURLWithPath:)` replaces such bytes with U+FFFD, and `path`
// of a URL holding them percent-encoded is empty, so a file with such a name could be neither
// opened nor listed. These keep the bytes in the URL, percent-encoded, and give them back to the
// system; people see the name with U+FFFD where its bytes are not text.
extension URL {
    /// A file URL for the path `bytes`, absolute or relative to `directory`, with `.` and `..`
    /// resolved; the bytes survive whatever they are.
    public init(filePathBytes bytes: [UInt8], relativeTo directory: URL) {
        if let text = String(validating: bytes, as: UTF8.self) {
            self = URL(fileURLWithPath: text, relativeTo: directory).standardizedFileURL
            return
        }
        let absolute = bytes.first == UInt8(ascii: "/") ? bytes : directory.filePathBytes + [UInt8(ascii: "/")] + bytes
        var parts: [ArraySlice<UInt8>] = []
        for part in absolute.split(separator: UInt8(ascii: "/")) {
            if part.elementsEqual(".".utf8) { continue }
            if part.elementsEqual("..".utf8) {
                _ = parts.popLast()
                continue
            }
            parts.append(part)
        }
        var encoded = "file://"
        for part in parts {
            encoded += "/"
            for byte in part {
                if Self.pathSafe[Int(byte)] {
                    encoded.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
                }
            }
        }
        if parts.isEmpty { encoded += "/" }
        self = URL(string: encoded)!
    }

    /// The file URL of `name` (bytes, whatever they are) in the folder this URL names.
    public func appendingPathBytes(_ name: [UInt8]) -> URL {
        URL(filePathBytes: filePathBytes + [UInt8(ascii: "/")] + name, relativeTo: self)
    }

    /// The path's bytes, for the system: `path`, except that a name that is not UTF-8 keeps its bytes.
    public var filePathBytes: [UInt8] {
        let text = path
        if !text.isEmpty { return Array(text.utf8) }
        return Self.percentDecoded(path(percentEncoded: true))
    }

    /// The path for people: where its bytes are not UTF-8, U+FFFD stands for them.
    public var displayPath: String {
        let text = path
        return text.isEmpty ? String(decoding: filePathBytes, as: UTF8.self) : text
    }

    /// The last part of the path for people, as `displayPath` shows it.
    public var displayName: String {
        let name = lastPathComponent
        guard name.isEmpty, isFileURL else { return name }
        return String(displayPath.split(separator: "/").last ?? "")
    }

    /// Runs `body` with the path as the system takes it.
    public func withFilePath<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try (filePathBytes + [0]).withUnsafeBufferPointer { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// What `stat` (or, not following a link, `lstat`) says of the path; nil when there is nothing
    /// there, with `errno` saying why.
    public func fileStatus(followingLinks: Bool = true) -> stat? {
        var status = stat()
        let result = withFilePath { followingLinks ? stat($0, &status) : lstat($0, &status) }
        return result == 0 ? status : nil
    }

    private static func percentDecoded(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    /// Bytes a path may hold as they are in a URL: RFC 3986's unreserved characters and the sub-delimiters a path allows.
    private static let pathSafe: [Bool] = (0..<256).map { code in
        guard code < 0x80 else { return false }
        let scalar = Unicode.Scalar(UInt8(code))
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-._~!$&'()*+,;=:@".unicodeScalars.contains(scalar)
    }
}

/// The bytes of the command line's arguments that are not UTF-8, which `CommandLine.arguments`
/// has only with U+FFFD in their place.
public enum CommandLineBytes {
    private static let table: [String: [UInt8]] = {
        var table: [String: [UInt8]] = [:]
        for index in 0..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(
                UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            guard String(validating: bytes, as: UTF8.self) == nil else { continue }
            table[String(decoding: bytes, as: UTF8.self)] = bytes
        }
        return table
    }()

    /// The bytes of the argument that reads as `argument`, when they are not UTF-8; nil otherwise.
    public static func bytes(of argument: String) -> [UInt8]? {
        guard argument.unicodeScalars.contains("\u{FFFD}") else { return nil }
        return table[argument]
    }

    /// A local file URL for `argument` as the user typed it, relative to `directory`: its own bytes
    /// when they are not UTF-8.
    public static func fileURL(for argument: String, relativeTo directory: URL) -> URL {
        if let bytes = bytes(of: argument) { return URL(filePathBytes: bytes, relativeTo: directory) }
        return URL(fileURLWithPath: argument, relativeTo: directory).standardizedFileURL
    }
}
