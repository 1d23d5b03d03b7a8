/// The process exit codes imgview documents, one per kind of failure, so scripts can tell them apart.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Everything asked for was done.
    case success = 0
    /// Several items were asked for and some of them failed.
    case partialFailure = 1
    /// The command line was wrong (unknown option, bad value, missing argument).
    case usage = 2
    /// The catalog is malformed or could not be loaded.
    case catalog = 3
    /// No such image: an unknown name, a missing file, or a server's 404/410.
    case notFound = 4
    /// The network failed: refused, unreachable, timed out, reset.
    case network = 5
    /// The server answered with an HTTP error status other than 404/410.
    case httpStatus = 6
    /// The bytes are not a usable image: truncated, corrupt, not an image, too large.
    case badImage = 7
    /// The output was refused before anything was written: it exists and `--force` was not
    /// given, or it is not a regular file or its folder is missing. (A write that fails is `storage`.)
    case output = 8
    /// The cache directory is unusable, or `cache verify` found damage.
    case cache = 9
    /// `--offline` was given and the image is not in the cache.
    case offlineMiss = 10
    /// Something could not be written on this machine: disk full, over quota, read-only, permission
    /// denied; in the cache, an output, or standard output.
    case storage = 11
    /// A system library the command needs cannot be loaded (not installed, or too old): the
    /// message names the Debian package. Codecs are the exception: a missing one is `badImage`,
    /// as any image imgview cannot decode here.
    case missingLibrary = 12
    /// Interrupted by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
    case interrupted = 130

    /// One line for the README and `--help`.
    public var summary: String {
        switch self {
        case .success: "success"
        case .partialFailure: "some of several images failed"
        case .usage: "usage error (bad option or argument)"
        case .catalog: "malformed or unreadable catalog"
        case .notFound: "unknown image name, missing file, or HTTP 404/410"
        case .network: "network failure (refused, unreachable, timeout, reset)"
        case .httpStatus: "HTTP error status"
        case .badImage: "not a usable image (truncated, corrupt, not an image, too large)"
        case .output: "output refused: exists without --force, not a regular file, or no such folder"
        case .cache: "cache unusable or damaged; cache verify found (and removed) damage"
        case .offlineMiss: "--offline and not cached"
        case .storage: "cannot write locally (disk full, quota, read-only, permission denied)"
        case .missingLibrary: "a system library the command needs cannot be loaded (the message names its package)"
        case .interrupted: "interrupted"
        }
    }
}

/// An error that knows the one line a user should read and the exit code it ends with.
public protocol UserFacingError: Error {
    /// One line, without the program name or a trailing period; free of control characters.
    var message: String { get }
    var exitStatus: ExitStatus { get }
}
