import GatewireJSON
import GatewireMapping

/// The one place that decides what a response means: status gate, body parsing, descriptor
/// selection and mapping (RestKit's `RKObjectRequestOperation` + `RKResponseMapperOperation`,
/// with the ambiguities of the reference pinned as below).
///
/// 1. **Status gate.** Any 2xx is accepted, even when only error descriptors match. A 1xx/3xx
///    is accepted only when a matching response descriptor (method, path, status) lists it.
///    4xx and 5xx are always failures, whatever matched (as RestKit, issue #1572); a DELETE
///    that gets a 404 is a failure too (RestKit swallowed it, #2406). Decided differently from
///    RestKit: error descriptors never narrow the accepted set (#1815).
/// 2. **No body.** HEAD, 204, 205, 304, and a body of 0 bytes or only whitespace (RestKit:
///    0 bytes or one space) are not parsed: success with `mapped == nil`, or an HTTP failure
///    without error objects.
/// 3. **Content type.** `application/json` and any `+json` type (case-insensitive,
///    parameters stripped) are parsed. A body with no Content-Type or `text/plain` is parsed
///    only when a descriptor matches (servers often mislabel JSON). Any other type is not
///    parsed: on the success path with a matching descriptor that is a mapping error
///    (RestKit's -1016), without one a plain success; on the failure path the HTTP failure
///    stays as it is (the nginx HTML 502 page: no error objects, no parse error).
///    A response that no descriptor matches is not parsed here at all: its JSON body is
///    parsed when first read (``Response/jsonBody()``; ``ResponseJSON`` says why), except
///    for a page or cursor ``Paginator``, which needs it (see ``triage(_:readingJSONBody:)``).
/// 4. **Parse errors.** Invalid JSON on the success path with a matching descriptor is a
///    ``MappingError`` with Jansson's line and column. On the failure path it is ignored:
///    the HTTP failure is the error. Without a matching descriptor there is nothing to map,
///    so no mapping error: the call succeeds and ``Response/jsonBody()`` throws the same error
///    (line and column) when the caller reads the body as JSON.
/// 5. **Success path.** Every matching response descriptor applies. For one key path, the
///    descriptor with the most specific ``PathPattern`` wins (a descriptor without a pattern
///    ranks below any pattern), and on a tie the later registration (as RestKit). The result
///    object is keyed by key path. A key path that finds nothing (missing, `null`, or an array
///    of only `null`) is left out without error; if no key path finds anything, `mapped` is
///    `{}` (decided differently from RestKit's error 1001: the caller keeps the raw body and
///    a partial API change should not fail a call that succeeded). No descriptor matching a
///    2xx: accepted, `mapped == nil`. A mapping error makes `error` non-nil and `mapped` nil.
/// 6. **Metadata.** The mappings see the response as `@metadata` (method, URL, path, status,
///    headers, the captured path parameters of the descriptors that applied, and the query
///    parameters), the whole body as `@root`, and a nested object's holder as `@parent`
///    (see ``MappingContext``).
/// 7. **Speed.** The body is parsed at most once (Jansson); mapping walks that tree through
///    ``JSONNode`` views and builds only the mapped output: unmapped parts are never copied,
///    `json` attributes and key paths share the parsed subtrees, and ``Response/body`` and the
///    paginator reuse the same tree.
/// 8. **Failure path.** Matching error descriptors, and response descriptors that list the
///    failure status, map the objects at their key paths into ``MappingOutcome/errorObjects``
///    (flattened, as RestKit's `RKObjectMapperErrorObjectsKey`). A mapping error there is not
///    reported (the HTTP failure is); the objects that fail are left out.
package struct ResponseMapper: Sendable {
    /// The mappings and descriptors.
    package let catalog: MappingCatalog

    /// A mapper over a built catalog (cheap: it shares the catalog).
    package init(catalog: MappingCatalog) { self.catalog = catalog }

    /// Decides what `response` means (see the type's rules). Never throws: every problem is
    /// in the outcome. The same as ``mapBody(of:)`` of `triage(_:)` when that needs a parse.
    package func map(_ response: MappableResponse) -> MappingOutcome {
        let triage = triage(response)
        return triage.needsParse ? mapBody(of: triage) : triage.outcome
    }

    /// What the mapper decides before any parse: rules 1, 2 and 3 and the matching
    /// descriptors. Cheap (no parse, no allocation of trees), so the event loop runs it and
    /// hands ``mapBody(of:)`` of a large body to a worker.
    package struct Triage: Sendable {
        /// The response.
        package let response: MappableResponse
        /// The outcome when ``needsParse`` is false; else what ``mapBody(of:)`` starts from.
        package let outcome: MappingOutcome
        /// Whether descriptors need the body parsed: ``mapBody(of:)`` gives the outcome.
        package let needsParse: Bool
        let candidates: [(ResponseDescriptor, [String: String])]
        let failure: Bool
    }

    /// Rules 1 to 3 and the descriptors that match `response` (see ``Triage``). With no
    /// matching descriptor nothing is parsed: a JSON body is left for ``Response/jsonBody()``
    /// to parse on first read (``ResponseJSON``), so such a call never fails with a mapping
    /// error (rule 4 applies to bodies that descriptors map) — unless `readingJSONBody`: the
    /// caller reads the body itself (a page or cursor ``Paginator``), so an accepted JSON body
    /// is parsed as if a descriptor matched, and invalid JSON is a mapping error of the call.
    package func triage(_ response: MappableResponse, readingJSONBody: Bool = false) -> Triage {
        let status = response.status
        let failure = status >= 400
        let responseMatches = matches(catalog.responseDescriptors, response)
        let accepted = !failure && ((200...299).contains(status) || !responseMatches.isEmpty)

        let candidates: [(ResponseDescriptor, [String: String])]
        if failure {
            candidates = matches(catalog.errorDescriptors, response) + responseMatches
        } else {
            candidates = accepted ? responseMatches : []
        }
        var outcome = MappingOutcome(accepted: accepted)
        func decided(parsing: Bool = false) -> Triage {
            Triage(response: response, outcome: outcome, needsParse: parsing, candidates: candidates, failure: failure)
        }
        guard !candidates.isEmpty else {
            guard accepted else { return decided() }
            if readingJSONBody, !ResponseMapper.hasNoBody(response), ResponseMapper.isJSON(response.contentType) {
                return decided(parsing: true)
            }
            outcome.json = ResponseJSON(deferred: response)
            return decided()
        }
        if ResponseMapper.hasNoBody(response) { return decided() }
        let kind = ResponseMapper.mediaType(response.contentType)
        let declaredJSON = ResponseMapper.isJSONMediaType(kind)
        let sniffable = kind.isEmpty || kind == "text/plain"
        guard declaredJSON || sniffable else {
            if accepted { outcome.error = MappingError("expected a JSON body (application/json or +json), got content type \(kind)") }
            return decided()
        }
        return decided(parsing: true)
    }

    /// Parses the body of a ``Triage`` that needs it and maps it with the matching
    /// descriptors (rules 4 to 8). Never throws: every problem is in the outcome. A large
    /// body's trees are built in a `JSONArena` scope. Runs on any thread (the event loop,
    /// or a `WorkerPool` worker for a large body).
    package func mapBody(of triage: Triage) -> MappingOutcome {
        JSONArena.scope(bodyBytes: triage.response.body.count) { mapParsed(triage) }
    }

    private func mapParsed(_ triage: Triage) -> MappingOutcome {
        let response = triage.response
        var outcome = triage.outcome
        let body: JSONValue
        switch ResponseMapper.parseBody(response) {
        case .success(let value):
            body = value
        case .failure(let error):
            if outcome.accepted { outcome.error = MappingError(parse: error) }
            return outcome
        }
        outcome.json = ResponseJSON(parsed: body)
        guard !triage.candidates.isEmpty else { return outcome }  // parsed for a paginator only

        let winners = ResponseMapper.winners(triage.candidates)
        for (_, parameters) in winners {
            outcome.pathParameters.merge(parameters) { _, new in new }
        }
        let metadata = response.metadata(pathParameters: outcome.pathParameters)
        outcome.metadata = metadata
        let context = MappingContext(root: body, metadata: metadata)
        if triage.failure {
            let objects = JSONValue.array()
            for (descriptor, _) in winners {
                guard let found = try? descriptor.keyPath.value(in: body.node), !ResponseMapper.isNothing(found.node) else { continue }
                let elements = found.node.kind == .array ? found.node.elements : [found.node]
                for (index, element) in elements.enumerated() where !element.isNull {
                    let path = found.node.kind == .array ? "\(descriptor.keyPath)[\(index)]" : descriptor.keyPath.description
                    if let mapped = try? catalog.mapper.map(element, with: descriptor.mapping, at: path, context: context) {
                        objects.append(mapped)
                    }
                }
            }
            if objects.node.count > 0 { outcome.errorObjects = objects }
            return outcome
        }
        let result = JSONValue.object()
        do throws(MappingError) {
            for (descriptor, _) in winners {
                guard let found = try descriptor.keyPath.value(in: body.node), !ResponseMapper.isNothing(found.node) else { continue }
                result.set(descriptor.keyPath.description,
                           try catalog.mapper.map(found.node, with: descriptor.mapping, at: descriptor.keyPath.description,
                                                   context: context))
            }
            outcome.mapped = result
        } catch {
            outcome.error = error
        }
        return outcome
    }

    private func matches(_ descriptors: [ResponseDescriptor], _ response: MappableResponse) -> [(ResponseDescriptor, [String: String])] {
        descriptors.compactMap { descriptor in
            descriptor.match(method: response.method, path: response.path, status: response.status).map { (descriptor, $0) }
        }
    }

    /// One descriptor per key path: the most specific pattern, then the later registration;
    /// in the order the key paths were first registered.
    static func winners(_ candidates: [(ResponseDescriptor, [String: String])]) -> [(ResponseDescriptor, [String: String])] {
        var order: [JSONKeyPath] = []
        var best: [JSONKeyPath: (ResponseDescriptor, [String: String])] = [:]
        for candidate in candidates {
            let key = candidate.0.keyPath
            guard let current = best[key] else {
                order.append(key)
                best[key] = candidate
                continue
            }
            if rank(candidate.0) >= rank(current.0) { best[key] = candidate }
        }
        return order.map { best[$0]! }
    }

    /// A pattern-less descriptor ranks below every pattern.
    private static func rank(_ descriptor: ResponseDescriptor) -> PathPattern.Specificity {
        descriptor.pathPattern?.specificity
            ?? PathPattern.Specificity(literalSegments: -1, hasWildcard: true, parameterSegments: 0)
    }

    /// `null` or an array of only `null`s: "not found", as RestKit.
    static func isNothing(_ node: JSONNode) -> Bool {
        if node.isNull { return true }
        guard node.kind == .array else { return false }
        let count = node.count
        return count > 0 && (0..<count).allSatisfy { node.element(at: $0)?.isNull ?? false }
    }

    /// The body parsed by Jansson (the caller sets up any `JSONArena` scope).
    static func parseBody(_ response: MappableResponse) -> Result<JSONValue, JSONParseError> {
        response.body.withUnsafeBytes { bytes in
            Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
        }
    }

    /// Rule 2: HEAD, 204, 205 and 304 have no body to parse, nor has a blank one.
    static func hasNoBody(_ response: MappableResponse) -> Bool {
        response.method == .head || [204, 205, 304].contains(response.status) || isBlank(response.body)
    }

    /// 0 bytes or only spaces, tabs, CR and LF.
    static func isBlank(_ body: [UInt8]) -> Bool {
        body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    /// Rule 3: a body declared JSON, `application/json` or any `+json` type.
    static func isJSON(_ contentType: String?) -> Bool {
        isJSONMediaType(mediaType(contentType))
    }

    /// Whether a ``mediaType(_:)`` is `application/json` or a `+json` type.
    static func isJSONMediaType(_ kind: String) -> Bool {
        kind == "application/json" || kind.hasSuffix("+json")
    }

    /// `application/problem+json` from `Application/Problem+JSON; charset=utf-8`; "" when absent.
    static func mediaType(_ contentType: String?) -> String {
        guard let contentType else { return "" }
        // Fast path: already lower-case ASCII without spaces (`application/json; charset=utf-8`).
        var simple = true
        var end = 0
        for byte in contentType.utf8 {
            if byte == UInt8(ascii: ";") { break }
            if byte == UInt8(ascii: " ") || byte >= 0x80 || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) {
                simple = false
                break
            }
            end += 1
        }
        if simple {
            let utf8 = contentType.utf8
            return end == utf8.count ? contentType : String(Substring(utf8[..<utf8.index(utf8.startIndex, offsetBy: end)]))
        }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(type.trimmingSpaces).lowercased()
    }
}
