import Crypto
import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewSupport

/// `imgview get -i FILE` and `--json`, as scripts run them, against the loopback server.
@Suite("imgview get: lists and JSON")
struct ListCommandTests {
    static let image = try! Fixtures.data("rgb.png")

    func withServer(_ body: (LoopbackServer, URL) async throws -> Void) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) { try await body(server, folder) }
    }

    func get(_ arguments: [String], in folder: URL) async throws -> ImgviewProcess.Result {
        try await ImgviewProcess.run(
            ["get", "--quiet"] + arguments, environment: ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path],
            directory: folder, timeout: .seconds(300))
    }

    /// A thousand lines with comments, blanks and one bad line: 999 files, the bad line named by its
    /// number, a summary, exit 1.
    @Test func aListOfAThousandLines() async throws {
        try await withServer { server, folder in
            var lines = ["# images for the test", ""]
            for index in 0..<1000 {
                let path = "/list/\(index).png"
                server.publish(.data(Self.image + Data("\(index)".utf8), contentType: "image/png"), at: path)
                lines.append(
                    index == 500 ? "  \(server.url(for: "/list/missing.png").absoluteString)  " : server.url(for: path).absoluteString)
            }
            try lines.joined(separator: "\n").write(to: folder.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)

            let result = try await get(["-i", "list.txt", "-O", "out", "--jobs", "8"], in: folder)
            #expect(result.status == ExitStatus.partialFailure.rawValue, "\(result.stderr.prefix(500))")
            let saved = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
            #expect(saved.count == 999)
            #expect(result.stdout.split(separator: "\n").count == 999)
            #expect(result.stderr.contains("imgview: list.txt:503: "))
            #expect(result.stderr.contains("HTTP 404"))
            #expect(result.stderr.hasSuffix("imgview: 1000 images: 999 saved, 1 failed\n"))
            #expect(try Data(contentsOf: folder.appendingPathComponent("out/7.png")) == Self.image + Data("7".utf8))
        }
    }

    /// `-i -` reads standard input; arguments come first; a line that names nothing is that line's failure.
    @Test func standardInputAndBadLines() async throws {
        try await withServer { server, folder in
            server.publish(.data(Self.image, contentType: "image/png"), at: "/a.png")
            server.publish(.data(Self.image + Data([1]), contentType: "image/png"), at: "/b.png")
            let list = "\(server.url(for: "/b.png").absoluteString)\nftp://example.org/c.png\n"
            let input = folder.appendingPathComponent("input")
            try list.write(to: input, atomically: true, encoding: .utf8)
            let result = try await ImgviewProcess.run(
                [
                    "-c", "exec \"$0\" get --quiet -i - \"$1\" < input", ImgviewProcess.binary.path,
                    server.url(for: "/a.png").absoluteString,
                ],
                executable: URL(fileURLWithPath: "/bin/sh"),
                environment: ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path], directory: folder)
            #expect(result.status == ExitStatus.partialFailure.rawValue, "\(result.stderr)")
            #expect(
                Set(result.stdout.split(separator: "\n").map { URL(fileURLWithPath: String($0)).lastPathComponent }) == ["a.png", "b.png"])
            #expect(result.stderr.contains("imgview: stdin:2: "))
        }
    }

    /// Every `--json` line parses, says what happened, and matches the file it names.
    @Test func jsonLinesMatchTheFiles() async throws {
        try await withServer { server, folder in
            server.publish(.data(Self.image, contentType: "image/png"), at: "/a.png")
            server.publish(.data(Self.image + Data([2]), contentType: "image/png"), at: "/b.png")
            let a = server.url(for: "/a.png").absoluteString
            let b = server.url(for: "/b.png").absoluteString
            let missing = server.url(for: "/none.png").absoluteString
            let first = try await get(["--json", a, b, missing], in: folder)
            #expect(first.status == ExitStatus.partialFailure.rawValue)
            let objects = try first.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(objects.count == 3)
            for object in objects {
                #expect(
                    object.keys.sorted() == [
                        "bytes", "content_type", "elapsed_ms", "error", "exit_code", "final_url", "http_status", "input", "line",
                        "path", "resumed_from", "sha256", "source", "status", "url",
                    ])
                if object["url"] as? String == missing {
                    #expect(object["status"] as? String == "failed")
                    #expect(object["exit_code"] as? Int == Int(ExitStatus.notFound.rawValue))
                    #expect((object["error"] as? String)?.contains("HTTP 404") == true)
                    #expect(object["path"] is NSNull)
                } else {
                    #expect(object["status"] as? String == "downloaded")
                    #expect(object["http_status"] as? Int == 200)
                    let path = try #require(object["path"] as? String)
                    let data = try Data(contentsOf: URL(fileURLWithPath: path))
                    #expect(object["sha256"] as? String == sha256Hex(data))
                    #expect(object["bytes"] as? Int == data.count)
                    #expect(object["exit_code"] as? Int == 0)
                }
            }
            // Again: the files hold these bytes already; into another folder, they come from the cache.
            let again = try await get(["--json", a], in: folder)
            #expect(again.stdout.contains("\"status\":\"up-to-date\""), "\(again.stdout)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("other"), withIntermediateDirectories: true)
            let cached = try await get(["--json", a, "-O", "other"], in: folder)
            #expect(cached.stdout.contains("\"status\":\"from-cache\""), "\(cached.stdout)")
        }
    }

    @Test func usageErrors() async throws {
        let single = try await ImgviewProcess.run(["get", "-i", "list.txt", "-o", "x.png"])
        #expect(single.status == ExitStatus.usage.rawValue)
        let both = try await ImgviewProcess.run(["get", "--json", "-o", "-", "http://127.0.0.1:9/a.png"])
        #expect(both.status == ExitStatus.usage.rawValue)
        let missing = try await ImgviewProcess.run(["get", "-i", "/nonexistent/list.txt"])
        #expect(missing.status == ExitStatus.notFound.rawValue)
        #expect(missing.stderr == "imgview: /nonexistent/list.txt: cannot read the list of images\n")
    }
}
