import Foundation
import ImgviewSupport

/// The paths the loopback server answers, each with its resource and the faults for its next requests.
final class RouteTable: Sendable {
    struct Route: Sendable {
        var resource: ServedResource
        /// Request n of this path gets `faults[n]`; the last one repeats; none means well-behaved.
        var faults: [Fault]
        var served = 0
    }

    private let routes = Locked<[String: Route]>([:])

    func publish(_ resource: ServedResource, at path: String, faults: [Fault]) {
        routes.withLock { $0[path] = Route(resource: resource, faults: faults) }
    }

    func setFaults(_ faults: [Fault], for path: String) {
        routes.withLock { routes in
            routes[path]?.faults = faults
            routes[path]?.served = 0
        }
    }

    func remove(_ path: String) {
        routes.withLock { _ = $0.removeValue(forKey: path) }
    }

    var paths: [String] { routes.withLock { Array($0.keys) } }

    /// The resource at `path` and the fault for this request of it, counting the request.
    func take(_ path: String) -> (ServedResource, Fault)? {
        routes.withLock { routes in
            guard var route = routes[path] else { return nil }
            let fault = route.faults.isEmpty ? Fault.none : route.faults[min(route.served, route.faults.count - 1)]
            route.served += 1
            routes[path] = route
            return (route.resource, fault)
        }
    }
}
