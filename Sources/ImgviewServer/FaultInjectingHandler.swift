import FlyingFox
import Foundation
import ImgviewCompression
import ImgviewSupport

/// Answers every request from the route table, as a real server would, unless a fault says otherwise.
struct FaultInjectingHandler: HTTPHandler {
    let routes: RouteTable
    let log: RequestLog

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
        var clientPort: UInt16?
        if case .ip4(_, let port)? = request.remoteAddress { clientPort = port }
        let sequence = log.record(method: request.method.rawValue, path: request.path, headers: headers, connection: clientPort)

        guard let (resource, fault) = routes.take(request.path) else {
            return finish(sequence, plain(404, "not found"))
        }
        if fault.delayBeforeHeaders > .zero {
            try await Task.sleep(for: fault.delayBeforeHeaders)
        }
        if let redirect = fault.redirect {
            var response = plain(redirect.status, "moved")
            response.headers[.location] = redirect.location
            return finish(sequence, apply(fault.headers, to: response))
        }
        if let status = fault.status {
            // A 304 (or 204) has no body: text after it would be read as the next response.
            let response =
                status == 304 || status == 204
                ? HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "status \(status)")) : plain(status, "status \(status)")
            return finish(sequence, apply(fault.headers, to: response))
        }
        guard request.method == .GET || request.method == .HEAD else {
            return finish(sequence, plain(405, "method not allowed"))
        }

        var response = HTTPResponse(statusCode: .ok)
        if let etag = resource.etag { response.headers[HTTPHeader("ETag")] = etag }
        if let modified = resource.lastModified {
            response.headers[.lastModified] = HTTPDate.string(from: modified)
        }
        if let cacheControl = resource.cacheControl { response.headers[.cacheControl] = cacheControl }

        if fault.honoursConditionalRequests, fault.replacementBody == nil, isNotModified(request, resource) {
            response.statusCode = HTTPStatusCode(304, phrase: "Not Modified")
            return finish(sequence, apply(fault.headers, to: response))
        }

        response.headers[.contentType] = fault.contentType ?? resource.contentType
        var source: FaultyBody.Source
        var length: Int
        switch (fault.replacementBody, resource.body) {
        case (let replacement?, _):
            source = .data(replacement)
            length = replacement.count
        case (nil, .data(let data)):
            source = .data(data)
            length = data.count
        case (nil, .file(let url, let size)):
            source = .file(url)
            length = size
        }
        if let range = fault.partialContent {
            let whole = try Self.bytes(of: source)
            let part = range.clamped(to: 0..<whole.count)
            source = .data(whole.subdata(in: part))
            length = part.count
            response.statusCode = HTTPStatusCode(206, phrase: "Partial Content")
            response.headers[HTTPHeader("Content-Range")] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(whole.count)"
        }
        if let encoding = fault.encoding,
            encoding.evenIfNotAccepted || request.headers[HTTPHeader("Accept-Encoding")]?.contains(encoding.coding.token) == true
        {
            var encoded = try Self.encode(try Self.bytes(of: source), as: encoding.coding)
            if let cut = encoding.cutAfter { encoded = encoded.prefix(cut) }
            source = .data(encoded)
            length = encoded.count
            response.headers[.contentEncoding] = encoding.coding.token
        }
        // Ranges count the bytes as sent, so a compressed body is never served in parts.
        var start = 0
        if fault.honoursRanges, response.headers[.contentEncoding] == nil {
            response.headers[HTTPHeader("Accept-Ranges")] = "bytes"
            switch RangeRequest.evaluate(headers, resource: resource, fault: fault, length: length) {
            case .whole:
                break
            case .from(let first):
                start = first
                response.statusCode = HTTPStatusCode(206, phrase: "Partial Content")
                response.headers[HTTPHeader("Content-Range")] = "bytes \(first)-\(length - 1)/\(length)"
            case .unsatisfiable:
                var refused = plain(416, "range not satisfiable")
                refused.headers[HTTPHeader("Content-Range")] = "bytes */\(length)"
                for name in [HTTPHeader("ETag"), .lastModified] { refused.headers[name] = response.headers[name] }
                return finish(sequence, apply(fault.headers, to: refused))
            }
        }
        response.headers[.contentLength] = String(length - start)
        response = apply(fault.headers, to: response)
        log.update(sequence) { $0.status = response.statusCode.code }

        if request.method == .HEAD {
            return finish(sequence, response)
        }
        let sent = fault.truncateAfter.map { max(start, min($0, length)) } ?? length
        let body = FaultyBody(
            source: source, start: start, length: sent, truncated: fault.truncateAfter != nil,
            chunkSize: max(1, fault.chunkSize), delayPerChunk: fault.delayPerChunk, hold: fault.hold,
            tracker: BodyTracker(log: log, sequence: sequence))
        response.payload = .httpBody(HTTPBodySequence(from: body, count: length - start, suggestedBufferSize: fault.chunkSize))
        return response
    }

    private static func bytes(of source: FaultyBody.Source) throws -> Data {
        switch source {
        case .data(let data): data
        case .file(let url): try Data(contentsOf: url)
        }
    }

    private static func encode(_ data: Data, as coding: Fault.Encoding.Coding) throws -> Data {
        switch coding {
        case .gzip: try Deflater.compress(data, as: .gzip)
        case .deflate: try Deflater.compress(data, as: .zlib)
        case .rawDeflate: try Deflater.compress(data, as: .raw)
        case .brotli: BrotliStored.encode(data)
        }
    }

    private func isNotModified(_ request: HTTPRequest, _ resource: ServedResource) -> Bool {
        if let tags = request.headers[HTTPHeader("If-None-Match")] {
            guard let etag = resource.etag else { return false }
            let candidates = tags.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return candidates.contains("*") || candidates.contains { weakless($0) == weakless(etag) }
        }
        if let since = request.headers[HTTPHeader("If-Modified-Since")].flatMap(HTTPDate.date(from:)),
            let modified = resource.lastModified
        {
            return modified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }

    /// If-None-Match compares weakly (RFC 9110 §13.1.2).
    private func weakless(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }

    private func plain(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: text),
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: Data((text + "\n").utf8))
    }

    private func apply(_ extra: [String: String], to response: HTTPResponse) -> HTTPResponse {
        var response = response
        for (name, value) in extra { response.headers[HTTPHeader(name)] = value }
        return response
    }

    /// Logs a response that is sent whole in one write: a short text, a redirect or a 304, not a resource body.
    private func finish(_ sequence: Int, _ response: HTTPResponse) -> HTTPResponse {
        log.update(sequence) { request in
            request.status = response.statusCode.code
            request.outcome = .completed
        }
        return response
    }
}
