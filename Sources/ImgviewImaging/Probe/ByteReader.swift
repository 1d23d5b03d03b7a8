import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes read by offset, from memory or a file: what every walk over a file's structure reads
/// through (the probe, the completeness and size walks, EXIF, ISO media boxes).
///
/// Every offset a walk uses comes from the file, so every read is checked: past the end there is
/// nothing (`nil`, or fewer bytes), never a trap.
public protocol ByteReader {
    /// How many bytes there are.
    var count: Int { get }
    func byte(at offset: Int) -> UInt8?
    /// Up to `count` bytes from `offset`, fewer at the end.
    func bytes(at offset: Int, count: Int) -> [UInt8]
    /// The offset of the first `value` at or after `start`.
    func firstIndex(of value: UInt8, from start: Int) -> Int?
}

extension ByteReader {
    /// The unsigned integer in the `size` bytes at `offset`, most significant first or last.
    /// The bytes are read first to last either way, so a reader over a file's moving window
    /// (`FileBytes`) loads it once for a field, not once a byte.
    public func integer(at offset: Int, size: Int, bigEndian: Bool) -> Int? {
        var value = 0
        for index in 0..<size {
            guard let byte = byte(at: offset + index) else { return nil }
            value = bigEndian ? value << 8 | Int(byte) : value | Int(byte) << (8 * index)
        }
        return value
    }

    public func bigEndian16(at offset: Int) -> Int? { integer(at: offset, size: 2, bigEndian: true) }
    public func bigEndian32(at offset: Int) -> Int? { integer(at: offset, size: 4, bigEndian: true) }
    public func littleEndian16(at offset: Int) -> Int? { integer(at: offset, size: 2, bigEndian: false) }
    public func littleEndian32(at offset: Int) -> Int? { integer(at: offset, size: 4, bigEndian: false) }

    /// Whether the bytes at `offset` are `expected`.
    public func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        bytes(at: offset, count: expected.count) == expected
    }
}

/// Bytes in memory, as an array.
public struct ArrayBytes: ByteReader {
    public let storage: [UInt8]

    public init(_ storage: [UInt8]) {
        self.storage = storage
    }

    public var count: Int { storage.count }

    public func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < storage.count ? storage[offset] : nil
    }

    public func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < storage.count, count > 0 else { return [] }
        return Array(storage[offset..<min(storage.count, offset + count)])
    }

    public func firstIndex(of value: UInt8, from start: Int) -> Int? {
        guard start < storage.count else { return nil }
        return storage[max(0, start)...].firstIndex(of: value)
    }
}

/// Bytes in memory, as `Data`, read in place.
public struct DataBytes: ByteReader {
    public let data: Data

    public init(_ data: Data) {
        self.data = data
    }

    public var count: Int { data.count }

    public func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < data.count ? data[data.startIndex + offset] : nil
    }

    public func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < data.count, count > 0 else { return [] }
        let start = data.startIndex + offset
        return [UInt8](data[start..<(start + min(count, data.count - offset))])
    }

    public func firstIndex(of value: UInt8, from start: Int) -> Int? {
        guard start < data.count else { return nil }
        let from = max(0, start)
        return data.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let hit = memchr(base + from, Int32(value), raw.count - from) else { return nil }
            return UnsafeRawPointer(hit) - base
        }
    }
}

/// A file read through a window that moves to wherever the last read was, so a walk that mostly
/// goes forward reads each byte about once, whatever the file's size.
public final class FileBytes: ByteReader {
    private let windowSize: Int
    private let descriptor: FileDescriptor
    private let ownsDescriptor: Bool
    public let count: Int
    private var window: [UInt8] = []
    private var windowStart = 0

    /// The file at `path`, opened for as long as the reader lives; nil when it cannot be opened.
    public convenience init?(path: String, windowSize: Int = 1 << 20) {
        guard let descriptor = try? FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec) else { return nil }
        self.init(descriptor: descriptor, owning: true, windowSize: windowSize)
    }

    /// The open file `descriptor`, read from its start with `pread`; the caller keeps it open.
    public convenience init?(descriptor: FileDescriptor, windowSize: Int = 1 << 20) {
        self.init(descriptor: descriptor, owning: false, windowSize: windowSize)
    }

    private init?(descriptor: FileDescriptor, owning: Bool, windowSize: Int) {
        var status = stat()
        guard fstat(descriptor.rawValue, &status) == 0 else {
            if owning { try? descriptor.close() }
            return nil
        }
        self.descriptor = descriptor
        ownsDescriptor = owning
        self.windowSize = max(16, windowSize)
        count = Int(status.st_size)
    }

    deinit {
        if ownsDescriptor { try? descriptor.close() }
    }

    public func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        if offset < windowStart || offset >= windowStart + window.count { load(at: offset) }
        let index = offset - windowStart
        return index < window.count ? window[index] : nil
    }

    public func firstIndex(of value: UInt8, from start: Int) -> Int? {
        var position = max(0, start)
        while position < count {
            guard byte(at: position) != nil else { return nil }
            let index = position - windowStart
            let found = window.withUnsafeBufferPointer { buffer -> Int? in
                let base = buffer.baseAddress! + index
                guard let hit = memchr(base, Int32(value), buffer.count - index) else { return nil }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(buffer.baseAddress!)
            }
            if let found { return windowStart + found }
            position = windowStart + window.count
        }
        return nil
    }

    public func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < self.count, count > 0 else { return [] }
        if offset >= windowStart, offset + count <= windowStart + window.count {
            return Array(window[(offset - windowStart)..<(offset - windowStart + count)])
        }
        return PositionalRead.bytes(descriptor.rawValue, at: offset, count: min(count, self.count - offset))
    }

    private func load(at offset: Int) {
        window = PositionalRead.bytes(descriptor.rawValue, at: offset, count: min(windowSize, count - offset))
        windowStart = offset
    }
}

/// Bytes in a buffer the caller keeps alive while the reader is used (a decoder's input).
public struct BufferBytes: ByteReader {
    public let buffer: UnsafeBufferPointer<UInt8>

    public init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    public var count: Int { buffer.count }

    public func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < buffer.count ? buffer[offset] : nil
    }

    public func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < buffer.count, count > 0 else { return [] }
        return Array(buffer[offset..<min(buffer.count, offset + count)])
    }

    public func firstIndex(of value: UInt8, from start: Int) -> Int? {
        guard start < buffer.count, let base = buffer.baseAddress else { return nil }
        let from = max(0, start)
        guard let hit = memchr(base + from, Int32(value), buffer.count - from) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
    }
}
