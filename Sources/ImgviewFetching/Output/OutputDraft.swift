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

/// The output file of a download, filled while the body arrives, so that saving it is giving it
/// a name rather than copying every byte again once the transfer is over.
///
/// It is an unnamed file (`O_TMPFILE`) in the destination's folder: until `OutputFile.publish`
/// names it, nothing of it is visible, and it vanishes with the process however that ends. Its
/// `bodyTap` is given to the service beside the request; the chunks are gathered into blocks as
/// the cache's blob writer gathers them. A retry that starts the body over starts the draft over;
/// a draft that missed the start of the body (it joined a transfer under way), or that could not
/// be written, is simply not used, and the output is copied as it would be without one. The file
/// is made when the first bytes arrive: a body served by a cache never costs one.
public final class OutputDraft: @unchecked Sendable {
    static let blockSize = 1 << 20

    /// The folder the file lives in, and may only be named in.
    package let folder: Directory
    private let lock = ThreadLock()
    /// The unnamed file, made on the body's first bytes.
    private var file: FileDescriptor?
    /// The one block the draft gathers into, allocated on the first chunk.
    private var buffer: UnsafeMutableRawBufferPointer?
    private var gatherer = BlockGatherer()
    /// How many bytes of the body have been taken: those written and those gathered.
    private var taken: Int64 = 0
    private var isBroken = false
    private var isHandedOut = false
    private var isClosed = false

    private init(folder: Directory) {
        self.folder = folder
    }

    deinit {
        close()
    }

    /// A draft in `folder`; nil where the folder cannot be opened. Where its file system has no
    /// unnamed files the draft is not used, and the output is written after the download as before.
    public static func open(in folder: URL) -> OutputDraft? {
        guard let directory = try? Directory.open(folder.path) else { return nil }
        return OutputDraft(folder: directory)
    }

    /// Hands the body to the draft: give it to `ImagePipeline.bytes(for:progress:body:)`.
    public var bodyTap: BodyTap {
        { [self] offset, bytes in take(bytes, at: offset) }
    }

    /// Lets go of the file: an unnamed one disappears, a named one stays where it was named.
    public func close() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            buffer?.deallocate()
            buffer = nil
            _ = gatherer.drop()
            try? file?.close()
        }
    }

    /// Takes none of the body: one the cache will not keep (over `--cache-max-entry`) is written
    /// once, into the download's own file, which then becomes the output (`OutputFile.publish`'s
    /// `ownFile`); a draft would write it a second time. Call before the body's first bytes.
    public func decline() {
        lock.withLock {
            guard taken == 0 else { return }
            isBroken = true
        }
    }

    /// Writes what is still gathered; returns the file if it holds exactly `byteCount` bytes of
    /// one whole body, else nil. Called once the transfer is over; the file is handed out once
    /// only, so one download can never give two names to one file.
    func finish(byteCount: Int64) -> FileDescriptor? {
        lock.withLock {
            guard !isClosed, !isHandedOut, !isBroken, let file, taken == byteCount else { return nil }
            flush()
            isHandedOut = !isBroken
            return isBroken ? nil : file
        }
    }

    private func take(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        lock.withLock {
            guard !isClosed, !isHandedOut else { return }
            if offset == 0, taken > 0 { restart() }
            guard !isBroken else { return }
            guard offset == taken else {
                // The draft joined a transfer already under way: it can never hold the whole body.
                isBroken = true
                return
            }
            if file == nil {
                file = try? LinuxFileCalls.openUnnamedFile(in: folder)
                guard file != nil else {
                    isBroken = true
                    return
                }
            }
            gatherer.append(bytes, take: takeBuffer) { block, count in write(block, count: count) }
            taken += Int64(bytes.count)
        }
    }

    /// The draft's block, to be filled again once written.
    private func takeBuffer() -> UnsafeMutableRawBufferPointer {
        if let buffer { return buffer }
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 64)
        buffer = block
        return block
    }

    /// Writes the gathered bytes at the end of the file. Runs under the lock.
    private func flush() {
        gatherer.handOn { block, count in write(block, count: count) }
    }

    private func write(_ block: UnsafeMutableRawBufferPointer, count: Int) {
        guard !isBroken, let file else { return }
        do {
            _ = try file.writeAll(UnsafeRawBufferPointer(rebasing: block[0..<count]))
        } catch {
            // A full disk, say: the output will be copied after the download, and that reports it.
            isBroken = true
        }
    }

    /// The body starts over (a retry): so does the file. Runs under the lock.
    private func restart() {
        _ = gatherer.drop()
        taken = 0
        // Bytes were taken, so the file was made.
        guard let file else { return }
        isBroken = ftruncate(file.rawValue, 0) != 0 || (try? file.seek(offset: 0, from: .start)) == nil
    }
}
