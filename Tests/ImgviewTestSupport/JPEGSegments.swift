import Foundation

/// JPEG files with segments taken out, for tests of what imgview makes of a file without them.
public enum JPEGSegments {
    /// `jpeg` without its segments of `marker` (0xE2 for APP2's ICC profile pieces, 0xEE for
    /// Adobe's APP14) before the first scan; the rest byte for byte.
    public static func removing(_ marker: UInt8, from jpeg: Data) -> Data {
        var bytes = [UInt8](jpeg)
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xDA {
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset + 1] == marker {
                bytes.removeSubrange(offset..<(offset + 2 + length))
            } else {
                offset += 2 + length
            }
        }
        return Data(bytes)
    }
}
