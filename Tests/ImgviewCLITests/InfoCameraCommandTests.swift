import Foundation
import ImgviewTestSupport
import Testing

/// `info` of a photo with a camera's EXIF (camera-exif.jpg, written by exiftool): the fields a
/// photographer looks for, sanitised, in text and JSON; nothing of the kind for a file without.
@Suite("info gives the camera fields")
struct InfoCameraCommandTests {
    @Test func aPhotosCameraFieldsAreShown() async throws {
        let text = try await ImgviewProcess.run(["info", Fixtures.path("camera-exif.jpg")])
        #expect(text.status == 0, "\(text.stderr)")
        for line in [
            "camera      Canon EOS 5D Mark IV\n", "lens        EF24-105mm f/4L IS USM\n", "taken       2019-05-04 12:30:05\n",
            "exposure    1/250 s, f/2.8, ISO 400\n", "focal       50 mm\n", "gps         yes\n",
        ] {
            #expect(text.stdout.contains(line), "\(line) in \(text.stdout)")
        }
        let json = try await ImgviewProcess.run(["info", "--json", Fixtures.path("camera-exif.jpg")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let camera = try #require(object["camera"] as? [String: Any])
        #expect(camera["make"] as? String == "Canon" && camera["model"] as? String == "Canon EOS 5D Mark IV")
        #expect(camera["taken"] as? String == "2019-05-04T12:30:05" && camera["iso"] as? Int == 400 && camera["gps"] as? Bool == true)
        #expect(
            camera["exposure_s"] as? Double == 0.004 && camera["f_number"] as? Double == 2.8 && camera["focal_length_mm"] as? Double == 50)

        let plain = try await ImgviewProcess.run(["info", "--json", Fixtures.path("photo.jpg")])
        let plainObject = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(plainObject["camera"] is NSNull)
        let plainText = try await ImgviewProcess.run(["info", Fixtures.path("photo.jpg")])
        #expect(!plainText.stdout.contains("camera ") && !plainText.stdout.contains("gps "))
    }

    /// The same photo and EXIF through HEIC, AVIF, WebP and JPEG XL encoders: the same lines,
    /// read from the item, chunk or box each keeps it in.
    @Test(arguments: ["camera-exif.heic", "camera-exif.avif", "camera-exif.webp", "camera-exif.jxl"])
    func everyContainersCameraFieldsAreShown(name: String) async throws {
        let text = try await ImgviewProcess.run(["info", Fixtures.path(name)])
        #expect(text.status == 0, "\(text.stderr)")
        for line in [
            "camera      Canon EOS 5D Mark IV\n", "lens        EF24-105mm f/4L IS USM\n", "taken       2019-05-04 12:30:05\n",
            "exposure    1/250 s, f/2.8, ISO 400\n", "focal       50 mm\n", "gps         yes\n",
        ] {
            #expect(text.stdout.contains(line), "\(name): \(line) in \(text.stdout)")
        }
    }

    /// A model name carrying an escape sequence reaches the terminal harmless.
    @Test func hostileTextIsSanitised() async throws {
        var bytes = [UInt8](try Fixtures.data("camera-exif.jpg"))
        let model = Array("Canon EOS 5D Mark IV".utf8)
        let at = try #require(bytes.indices.first { bytes[$0..<min($0 + model.count, bytes.count)].elementsEqual(model) })
        bytes.replaceSubrange(at..<(at + model.count), with: Array("Canon EOS\u{1B}[31m5D IV!".utf8))
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("hostile.jpg")
        try Data(bytes).write(to: file)
        for arguments in [["info", file.path], ["info", "--json", file.path]] {
            let result = try await ImgviewProcess.run(arguments)
            #expect(result.status == 0 && !result.stdout.contains("\u{1B}") && !result.stdout.contains("\\u001b"), "\(result.stdout)")
            #expect(result.stdout.contains("5D IV!"))
        }
    }
}
