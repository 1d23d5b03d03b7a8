import Foundation
import Testing

@testable import ImgviewSupport

/// What replaced Foundation-only APIs in the light binary gives what those APIs gave: checked
/// against Foundation itself, which the tests still link.
@Suite("Foundation's helpers, without Foundation")
struct FoundationReplacementTests {
    @Test func httpDatesReadTheThreeFormsAndWriteIMFFixdate() {
        let moment = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example)
        #expect(HTTPDate.string(from: moment) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.date(from: "Sun, 06 Nov 1994 08:49:37 GMT") == moment)
        #expect(HTTPDate.date(from: "Sunday, 06-Nov-94 08:49:37 GMT") == moment)
        #expect(HTTPDate.date(from: "Sun Nov  6 08:49:37 1994") == moment)
        #expect(HTTPDate.date(from: "  Sun, 06 Nov 1994 08:49:37 GMT ") == moment)
        for bad in ["", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "yesterday"] {
            #expect(HTTPDate.date(from: bad) == nil, "\(bad)")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for seconds in [0.0, 951_782_400, 1_763_000_000.75, 4_102_444_799, -86_401] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(HTTPDate.string(from: date) == formatter.string(from: date), "\(seconds)")
            #expect(HTTPDate.date(from: HTTPDate.string(from: date)) == Date(timeIntervalSince1970: seconds.rounded(.down)))
        }
    }

    @Test func printfFormatsAsStringFormatDid() {
        #expect(String(printf: "%.1f s", 1.25) == String(format: "%.1f s", 1.25))
        #expect(String(printf: " %3d%% ", 7) == String(format: " %3d%% ", 7))
        #expect(String(printf: "ETA %d:%02d", 3, 5) == "ETA 3:05")
        #expect(String(printf: "partial %.3f %lld", 1.5, Int64(42)) == "partial 1.500 42")
        #expect(String(printf: "") == "")
    }

    @Test func pathsAndNamesSplitAsNSStringSplitThem() {
        for path in ["/a/b", "/a", "a/b/", "/a/b.c/d", "/x/y/z.jpg"] {
            #expect(PathText.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
        // Foundation on Linux traps on these three; ours answers as NSString does on Darwin.
        #expect(PathText.folder(of: "") == "")
        #expect(PathText.folder(of: "a") == "")
        #expect(PathText.folder(of: "/") == "/")
        for name in ["a.jpg", "a.tar.gz", ".profile", "a.", "noext", "x.y.", "dir.d/file"] {
            #expect(PathText.fileExtension(of: name) == (name as NSString).pathExtension, "\(name)")
            #expect(PathText.stem(of: name) == (name as NSString).deletingPathExtension, "\(name)")
        }
    }

    @Test func percentEscapesDecodeAsFoundationDecodesThem() {
        for text in ["a%20b", "caf%C3%A9.jpg", "plain", "%", "%zz", "%C3", "100%25"] {
            #expect(text.percentDecoded() == text.removingPercentEncoding, "\(text)")
        }
    }

    @Test func trimmingAndPaddingMatchTheirFoundationCounterparts() {
        #expect(" \t a b \t".trimmingSpaces() == " \t a b \t".trimmingCharacters(in: .whitespaces))
        #expect("\n a \r\n".trimmingWhitespace() == "\n a \r\n".trimmingCharacters(in: .whitespacesAndNewlines))
        #expect("   ".trimmingSpaces() == "")
        #expect("\"etag\"".trimming { $0 == "\"" } == "etag")
        #expect("abc".padded(toLength: 5) == "abc".padding(toLength: 5, withPad: " ", startingAt: 0))
        #expect("abcdef".padded(toLength: 3) == "abcdef".padding(toLength: 3, withPad: " ", startingAt: 0))
    }

    @Test func aChildProcessRunsAndIsReaped() throws {
        let process = try ChildProcess(path: "/bin/sh", arguments: ["-c", "cat; exit 3"], standardInput: .pipe, standardOutput: .pipe)
        _ = try process.input?.writeAll("hello".utf8)
        process.closeInput()
        #expect(String(decoding: process.readOutputToEnd(), as: UTF8.self) == "hello")
        #expect(process.wait() == 3)
        #expect(process.exitStatusIfEnded() == 3)
        #expect(throws: ChildProcess.CannotStart.self) { try ChildProcess(path: "/nonexistent/program", arguments: []) }
    }
}
