import CCurl
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLError {
    /// The `URLError` FoundationNetworking would report for a libcurl failure, so the pipeline's
    /// retry rules and error words stay the same whichever loader fetched.
    ///
    /// - Parameters:
    ///   - osError: the system's errno behind the failure (CURLINFO_OS_ERRNO), 0 if none.
    ///   - detail: libcurl's own sentence (CURLOPT_ERRORBUFFER), used where no code fits.
    init(curl code: CURLcode, osError: Int32 = 0, detail: String? = nil) {
        let message = detail.flatMap { $0.isEmpty ? nil : $0 } ?? String(cString: curl_easy_strerror(code))
        let userInfo = [NSLocalizedDescriptionKey: message]
        switch code {
        case CURLE_COULDNT_CONNECT where osError == ETIMEDOUT:
            self.init(.timedOut, userInfo: userInfo)
        case CURLE_COULDNT_CONNECT where osError == ENETUNREACH || osError == ENETDOWN:
            self.init(.notConnectedToInternet, userInfo: userInfo)
        case CURLE_COULDNT_CONNECT where osError == ECONNREFUSED || osError == 0:
            self.init(.cannotConnectToHost, userInfo: userInfo)
        case CURLE_COULDNT_CONNECT:
            // Host unreachable and the like: libcurl's sentence says which.
            self.init(.unknown, userInfo: userInfo)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self.init(.cannotFindHost, userInfo: userInfo)
        case CURLE_OPERATION_TIMEDOUT:
            self.init(.timedOut, userInfo: userInfo)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            self.init(.networkConnectionLost, userInfo: userInfo)
        case CURLE_TOO_MANY_REDIRECTS:
            self.init(.httpTooManyRedirects, userInfo: userInfo)
        case CURLE_UNSUPPORTED_PROTOCOL:
            self.init(.unsupportedURL, userInfo: userInfo)
        case CURLE_URL_MALFORMAT:
            self.init(.badURL, userInfo: userInfo)
        case CURLE_PEER_FAILED_VERIFICATION:
            self.init(.serverCertificateUntrusted, userInfo: userInfo)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            self.init(.secureConnectionFailed, userInfo: userInfo)
        case CURLE_BAD_CONTENT_ENCODING:
            self.init(.cannotDecodeContentData, userInfo: userInfo)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_GOT_NOTHING:
            self.init(.badServerResponse, userInfo: userInfo)
        case CURLE_OUT_OF_MEMORY:
            self.init(.cannotLoadFromNetwork, userInfo: userInfo)
        default:
            self.init(.unknown, userInfo: userInfo)
        }
    }

    /// A failure of the multi handle itself (not of the transfer), in libcurl's words.
    init(curlMulti code: CURLMcode) {
        self.init(.unknown, userInfo: [NSLocalizedDescriptionKey: String(cString: curl_multi_strerror(code))])
    }
}
