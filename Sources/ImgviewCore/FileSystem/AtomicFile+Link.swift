import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension AtomicFile {
    /// Gives `destination` the bytes of `source` with a hard link, or a copy when a link cannot be made.
    ///
    /// Only for sources nothing ever writes into: the disk cache's content-addressed blobs (replaced
    /// by rename, removed by unlink, never opened for writing) and download temporaries. A link
    /// appears whole at once and costs no copy; a second copy of a 100 MB download cost more than the
    /// download itself (see DECISIONS.md, "get links its output to the cache blob"). On another file
    /// system (`EXDEV`), or one without hard links, the bytes are copied by `publish(copying:)`.
    /// Without `replace`, an existing destination is left alone and `FileSystemError` with `EEXIST` is thrown.
    public static func publish(linking source: URL, to destination: URL, replace: Bool) throws {
        if replace {
            // link() cannot replace; link under a private name, then rename over atomically.
            let folder = destination.deletingLastPathComponent().path
            let staging = "\(folder)/.\(destination.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).new"
            if link(source.path, staging) == 0 {
                let renamed = rename(staging, destination.path) == 0
                let code = errno
                // When the destination already is a link to the source, rename() succeeds and does
                // nothing, leaving the staging name behind; after a real rename the name is gone.
                unlink(staging)
                guard renamed else { throw FileSystemError(operation: "replace", path: destination.path, errno: code) }
                return
            }
        } else {
            if link(source.path, destination.path) == 0 { return }
            // link() fails with EEXIST rather than clobber a file that is there.
            if errno == EEXIST { throw FileSystemError(operation: "create", path: destination.path, errno: EEXIST) }
        }
        try publish(copying: source, to: destination, replace: replace)
    }
}
