/// Text from the fixed-size `char` arrays C libraries report errors in (imported as tuples).
enum CText {
    /// The bytes of `buffer` up to its first zero, as UTF-8 (invalid bytes replaced).
    static func string<Buffer>(_ buffer: inout Buffer) -> String {
        withUnsafeBytes(of: &buffer) { raw in
            let characters = raw.bindMemory(to: UInt8.self)
            let length = characters.firstIndex(of: 0) ?? characters.count
            return String(decoding: characters[..<length], as: UTF8.self)
        }
    }

    /// The characters of `buffer` up to its first zero, as UTF-8 (invalid bytes replaced).
    static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
