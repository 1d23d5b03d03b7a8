internal import CLibXML2
import ImgviewFetching
import ImgviewSupport

/// libxml2's HTML parser, as browsers' parsers are forgiving: tag soup, unclosed elements and
/// any declared charset come out as elements with UTF-8 attributes, reported as the bytes arrive
/// (SAX, so memory stays small however large the page), never a document tree.
///
/// libxml2 (and the ICU it links, tens of megabytes) is opened on the first page read, not at start-up.
public struct LibXMLHTMLParser: HTMLParsing {
    public init() {}

    public func parser(reportingTo handler: any HTMLElementHandling) throws -> any HTMLDocumentParsing {
        try XMLLibrary.loaded.get()
        guard let document = LibXMLDocument(handler: handler) else {
            throw PageError.parserUnavailable("libxml2 could not start a parser")
        }
        return document
    }
}

/// libxml2, opened once.
enum XMLLibrary {
    static let soname = "libxml2.so.2"
    static let package = "libxml2"

    static let loaded: Result<Void, PageError> = SharedLibrary.open(soname, package: package)
        .flatMap { library in
            library.functions { handle, missing in
                missing.pointee = imgview_html_load(handle)
            }
        }
        .mapError { PageError.parserUnavailable($0.summary) }
}

/// One document being parsed; the C parser calls back into it with itself as context.
final class LibXMLDocument: HTMLDocumentParsing {
    private let handler: any HTMLElementHandling
    private var parser: OpaquePointer?

    init?(handler: any HTMLElementHandling) {
        self.handler = handler
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let parser = imgview_html_parser_new(Self.start, Self.end, Self.text, context) else { return nil }
        self.parser = parser
    }

    deinit {
        imgview_html_parser_free(parser)
    }

    func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let parser, !bytes.isEmpty else { return }
        var offset = 0
        // libxml2 counts in `int`: a large buffer goes in pieces.
        while offset < bytes.count {
            let count = min(bytes.count - offset, 1 << 20)
            imgview_html_parser_feed(parser, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int32(count), 0)
            offset += count
            if handler.isSatisfied {
                imgview_html_parser_stop(parser)
                return
            }
        }
    }

    func finish() {
        guard let parser else { return }
        imgview_html_parser_feed(parser, nil, 0, 1)
    }

    private static func document(_ context: UnsafeMutableRawPointer?) -> LibXMLDocument {
        Unmanaged<LibXMLDocument>.fromOpaque(context!).takeUnretainedValue()
    }

    private static let start: imgview_html_start = { context, name, attributes in
        guard let name else { return }
        let document = document(context)
        var list: [HTMLAttribute] = []
        if var pair = attributes {
            while let attributeName = pair.pointee {
                let value = pair.advanced(by: 1).pointee
                list.append(HTMLAttribute(name: String(cString: attributeName), value: value.map { String(cString: $0) }))
                pair = pair.advanced(by: 2)
            }
        }
        document.handler.startElement(String(cString: name), attributes: list)
        if document.handler.isSatisfied, let parser = document.parser { imgview_html_parser_stop(parser) }
    }

    private static let end: imgview_html_end = { context, name in
        guard let name else { return }
        document(context).handler.endElement(String(cString: name))
    }

    private static let text: imgview_html_text = { context, text, length in
        let handler = document(context).handler
        guard handler.wantsText, let text, length > 0 else { return }
        handler.text(String(decoding: UnsafeRawBufferPointer(start: text, count: Int(length)), as: UTF8.self))
    }
}
