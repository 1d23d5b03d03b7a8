import CLibraryMessages
import Dispatch
import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewCodecs

/// C's `stderr` while a library runs: this thread's lines kept, bounded and sanitised; another
/// thread's lines passed on; `stderr` given back however the capture ends.
@Suite("Library messages")
struct LibraryMessagesTests {
    /// Prints as a C library does: through whatever C's `stderr` is at that moment.
    static func printOnStderr(_ text: String) {
        fputs(text, imgview_library_messages_stderr())
    }

    struct Failure: Error {}

    @Test func keepsWhatThisThreadPrintsOnceEachAndGivesStderrBack() {
        let before = imgview_library_messages_stderr()
        let (value, messages) = LibraryMessages.capture { () -> Int in
            #expect(imgview_library_messages_stderr() != before)
            Self.printOnStderr("Error parsing sequence header\n")
            Self.printOnStderr("Error parsing OBU data\n")
            Self.printOnStderr("Error parsing OBU data\n")
            return 7
        }
        #expect(value == 7)
        #expect(messages == ["Error parsing sequence header", "Error parsing OBU data"])
        #expect(imgview_library_messages_stderr() == before)
    }

    @Test func escapeSequencesAreNeutralised() {
        let (_, messages) = LibraryMessages.capture { Self.printOnStderr("\u{1B}]0;owned\u{07}bad\u{1B}[2J tile\u{2028}\n") }
        #expect(messages.count == 1)
        #expect(!messages[0].unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" })
        #expect(messages[0].contains("bad"))
    }

    /// A megabyte of lines: a few kept, each short, the last saying more was cut.
    @Test func aFloodIsBounded() {
        let (_, messages) = LibraryMessages.capture {
            for index in 0..<20_000 { Self.printOnStderr("line \(index) " + String(repeating: "x", count: 40) + "\n") }
            Self.printOnStderr(String(repeating: "y", count: 100_000))
        }
        #expect(messages.count == LibraryMessages.maxLines)
        #expect(messages.allSatisfy { $0.count <= LibraryMessages.maxLineLength + 2 })
        #expect(messages.last?.hasSuffix("…") == true)
    }

    @Test func stderrIsGivenBackWhenTheBodyThrows() {
        let before = imgview_library_messages_stderr()
        #expect(throws: Failure.self) {
            _ = try LibraryMessages.capture { () throws(Failure) -> Int in
                Self.printOnStderr("about to fail\n")
                throw Failure()
            }
        }
        #expect(imgview_library_messages_stderr() == before)
        // The next capture starts empty.
        let (_, messages) = LibraryMessages.capture { Self.printOnStderr("fresh\n") }
        #expect(messages == ["fresh"])
    }

    /// Another thread's error, printed while this one captures, reaches the stream stderr was,
    /// whole, and is not taken into this capture.
    @Test func anotherThreadsLinesPassThrough() throws {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        let elsewhere = try #require(open_memstream(&buffer, &size))
        defer {
            fclose(elsewhere)
            free(buffer)
        }
        let printed = DispatchSemaphore(value: 0)
        let (_, messages) = LibraryMessages.capture {
            imgview_library_messages_set_forward(elsewhere)
            defer { imgview_library_messages_set_forward(nil) }
            Self.printOnStderr("mine\n")
            DetachedThread.start(name: "another thread") {
                Self.printOnStderr("another thread's error\n")
                printed.signal()
            }
            printed.wait()
        }
        fflush(elsewhere)
        #expect(messages == ["mine"])
        #expect(String(cString: try #require(buffer)) == "another thread's error\n")
    }

    /// Two threads capturing at once each keep their own lines; stderr comes back only when the
    /// second ends.
    @Test func overlappingCapturesKeepTheirOwnLines() {
        let before = Int(bitPattern: imgview_library_messages_stderr())
        let firstBegan = DispatchSemaphore(value: 0)
        let firstMayEnd = DispatchSemaphore(value: 0)
        let firstEnded = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let results = Locked<[String: [String]]>([:])
        // Threads of their own: each blocks while the other works.
        DetachedThread.start(name: "first capture") {
            let (_, messages) = LibraryMessages.capture {
                Self.printOnStderr("first\n")
                firstBegan.signal()
                firstMayEnd.wait()
            }
            results.withLock { $0["first"] = messages }
            firstEnded.signal()
            done.signal()
        }
        DetachedThread.start(name: "second capture") {
            let (_, messages) = LibraryMessages.capture {
                firstBegan.wait()
                Self.printOnStderr("second\n")
                firstMayEnd.signal()
                firstEnded.wait()
                // The first capture is over; this one still holds stderr.
                #expect(Int(bitPattern: imgview_library_messages_stderr()) != before)
                Self.printOnStderr("second again\n")
            }
            results.withLock { $0["second"] = messages }
            done.signal()
        }
        done.wait()
        done.wait()
        #expect(results.withLock { $0 } == ["first": ["first"], "second": ["second", "second again"]])
        #expect(Int(bitPattern: imgview_library_messages_stderr()) == before)
    }
}
