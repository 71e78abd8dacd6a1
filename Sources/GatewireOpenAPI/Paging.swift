import GatewireJSON

/// A route's `pagination` where the document says how its GET pages, in one of the config's
/// styles:
/// - `link`: a 2xx response declares a `Link` header (RFC 8288's `rel="next"`, GitHub's);
/// - `cursor`: a query parameter that takes a cursor (`cursor`, `page_token`, `pagetoken`,
///   `next_token`, `continuation_token`, `after`, `marker`) paired with the response field that
///   holds the next one: `next_` + the parameter's name (`next_page_token` for `pagetoken`,
///   Google's), at the top or under a `cursors`/`response_metadata`-like object (Slack's
///   `response_metadata.next_cursor`, Spotify's `cursors.after`);
/// - `page`: a `page` parameter, a page-size parameter (`per_page`, `page_size`, `limit`)
///   with an integer `default`, and a total (`total_count`, `total`) in the response;
/// - `keyset`: Stripe's `starting_after` parameter with `has_more` and the items in `data`
///   (each with an `id`) in the response;
/// - `nextURL`: the next page's URL in the response (Twilio's `next_page_uri`, Spotify's
///   `next`, Azure's `nextLink` or the `nextLinkName` its `x-ms-pageable` names).
///
/// A GET that takes paging parameters but matches none of these has a report line: the config
/// cannot follow it.
struct Paging {
    let references: References
    let mappings: MappingBuilder

    /// Names (lower case, without `_` and `-`) of the parameters that take a cursor.
    static let cursorParameters: Set<String> = ["cursor", "pagetoken", "nexttoken", "continuationtoken", "after", "marker"]
    /// Names of the parameters that take a page number, a page size, another position.
    static let pageParameters: Set<String> = ["page", "pagenumber"]
    static let sizeParameters: Set<String> = ["perpage", "pagesize", "limit"]
    static let otherPagingParameters: Set<String> = ["startingafter", "endingbefore", "before"]
    /// Names (normalized) of the response fields that hold the next page's URL.
    static let nextURLFields: Set<String> = ["nextpageuri", "nextpageurl", "nextlink", "next", "odatanextlink"]

    /// `name` lower-cased without `_` and `-`, as the rules compare names.
    static func normalized(_ name: String) -> String { String(name.lowercased().filter { $0 != "_" && $0 != "-" }) }

    func pagination(of operation: Operation, report: inout ImportReport) throws(OpenAPIImportError) -> JSONValue? {
        guard operation.method == "GET" else { return nil }
        let file = operation.node.location.file.isEmpty ? nil : operation.node.location.file
        let success = try successResponses(operation)
        for response in success {
            if response["headers"]?.sortedMembers.contains(where: { $0.key.lowercased() == "link" }) == true {
                return style("link")
            }
        }
        let query = try operation.parameters(references).filter { $0.place == "query" }.map(\.name)
        let names = Dictionary(query.map { (Self.normalized($0), $0) }, uniquingKeysWith: { first, _ in first })
        let fields = try responseFields(success, report: &report)
        for (key, parameter) in names.sorted(by: { $0.key < $1.key }) where Self.cursorParameters.contains(key) {
            if let path = fields.first(where: { $0.name == "next" + key || ($0.nested && $0.name == key) })?.path {
                let pagination = style("cursor")
                pagination.set("cursorKeyPath", .string(path))
                pagination.set("parameter", .string(parameter))
                return pagination
            }
        }
        if let page = names.first(where: { Self.pageParameters.contains($0.key) })?.value,
           let size = try pageSize(operation, names),
           let total = fields.first(where: { !$0.nested && ["totalcount", "total", "totalresults"].contains($0.name) })?.path {
            let pagination = style("page")
            pagination.set("pageParameter", .string(page))
            pagination.set("perPageParameter", .string(size.name))
            pagination.set("perPage", .integer(size.value))
            pagination.set("totalKeyPath", .string(total))
            return pagination
        }
        if let after = names["startingafter"], fields.contains(where: { !$0.nested && $0.name == "hasmore" }),
           let items = fields.first(where: { !$0.nested && $0.name == "data" }) {
            let pagination = style("keyset")
            pagination.set("itemsKeyPath", .string(items.path))
            pagination.set("parameter", .string(after))
            pagination.set("hasMoreKeyPath", .string(fields.first { !$0.nested && $0.name == "hasmore" }!.path))
            return pagination
        }
        if let next = try nextURLField(operation, fields) {
            let pagination = style("nextURL")
            pagination.set("urlKeyPath", .string(next))
            return pagination
        }
        // An offset pages only beside a page size (Google's autocomplete `offset` is a position in the input).
        let sized = names.keys.contains { Self.sizeParameters.contains($0) }
        let paging = query.filter {
            let key = Self.normalized($0)
            return Self.cursorParameters.contains(key) || Self.pageParameters.contains(key) || Self.otherPagingParameters.contains(key)
                || (sized && (key == "offset" || key == "skip"))
        }
        if !paging.isEmpty || operation.node["x-ms-pageable"] != nil {
            let what = paging.isEmpty ? "x-ms-pageable" : "the parameters " + paging.joined(separator: ", ")
            report.add(operation.node.location.pointer, "pagination_not_expressible",
                       "the operation pages (\(what)), but not by a Link header, a next cursor or URL in the body, a page "
                       + "number with a total or a last item's id: the route has no pagination, a call asks for each page "
                       + "itself", document: file)
        }
        return nil
    }

    /// The key path of the response field that holds the next page's URL: the `nextLinkName`
    /// of `x-ms-pageable` (`nextLink` when it names none; `null` pages in one response), else a
    /// top-level field named as ``nextURLFields`` say; nil when there is none.
    private func nextURLField(_ operation: Operation, _ fields: [(name: String, path: String, nested: Bool)])
        throws(OpenAPIImportError) -> String?
    {
        if let pageable = operation.node["x-ms-pageable"] {
            let name = pageable["nextLinkName"]
            if name?.node.isNull == true { return nil }
            let wanted = Self.normalized(name?.node.string ?? "nextLink")
            return fields.first { !$0.nested && $0.name == wanted }?.path
        }
        return fields.first { !$0.nested && Self.nextURLFields.contains($0.name) }?.path
    }

    private func style(_ name: String) -> JSONValue {
        let value = JSONValue.object()
        value.set("style", .string(name))
        return value
    }

    /// The operation's 2xx Response Objects, after their `$ref`s.
    private func successResponses(_ operation: Operation) throws(OpenAPIImportError) -> [Located] {
        var result: [Located] = []
        for (key, response) in operation.node["responses"]?.sortedMembers ?? [] where key.hasPrefix("2") {
            result.append(try references.follow(response))
        }
        return result
    }

    /// The fields of the JSON bodies of `responses`: each top-level property, and each property
    /// of an object property whose name holds `cursor`, `paging`, `metadata` or `meta`
    /// (`nested`), with its key path; names normalized.
    private func responseFields(_ responses: [Located], report: inout ImportReport) throws(OpenAPIImportError)
        -> [(name: String, path: String, nested: Bool)]
    {
        var fields: [(name: String, path: String, nested: Bool)] = []
        for response in responses {
            guard let content = response["content"], let media = Responses.jsonMedia(content), let schema = media["schema"] else { continue }
            guard case .object(let properties, _) = try mappings.shape(of: schema, report: &report).kind else { continue }
            for (name, property) in properties {
                let key = name.replacingAll(".", with: "\\.")
                fields.append((Self.normalized(name), key, false))
                let inner = Self.normalized(name)
                guard ["cursor", "paging", "metadata", "meta"].contains(where: { inner.contains($0) }),
                      case .object(let nested, _) = try mappings.shape(of: property, report: &report).kind else { continue }
                for (nestedName, _) in nested {
                    fields.append((Self.normalized(nestedName), key + "." + nestedName.replacingAll(".", with: "\\."), true))
                }
            }
        }
        return fields
    }

    /// The page-size query parameter and its integer `default`, or nil.
    private func pageSize(_ operation: Operation, _ names: [String: String]) throws(OpenAPIImportError) -> (name: String, value: Int64)? {
        for (name, place, parameter) in try operation.parameters(references) where place == "query" {
            guard Self.sizeParameters.contains(Self.normalized(name)) else { continue }
            if let schema = parameter["schema"], let value = try references.follow(schema)["default"]?.node.integer,
               (1...1_000_000).contains(value) {
                return (name, value)
            }
        }
        return nil
    }
}
