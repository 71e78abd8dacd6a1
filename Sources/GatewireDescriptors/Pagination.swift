import GatewireJSON
import GatewireMapping

/// How a route's results are split into pages (config `routes.<name>.pagination`), walked
/// lazily by a ``Paginator``.
///
/// - `page`: `{"style": "page", "perPage": 2, "totalKeyPath": "total_count", "pageParameter": "page",
///   "perPageParameter": "per_page", "firstPage": 1, "maxPages": 10}`: sends `page` and
///   `per_page` query parameters; ends after the page where `page * perPage >= total`
///   (the total counts items, read at `totalKeyPath` in each page's body). A page without a
///   total ends the walk.
/// - `link`: `{"style": "link", "maxPages": 10}`: follows the `rel="next"` target of the
///   `Link` header (RFC 8288, see `LinkHeader`); ends when a page has none. The target must
///   lie under the base URL (or, for a base URL without a path, be an absolute path).
/// - `cursor`: `{"style": "cursor", "cursorKeyPath": "response_metadata.next_cursor",
///   "parameter": "cursor", "maxPages": 10}`: sends the next cursor (read at
///   `cursorKeyPath`; strings as they are, integers exactly) as the query parameter
///   `parameter`; ends when the cursor is missing, `null`, `""`, `0` or `"0"` (Slack ends
///   with `""`, Twitter with `0`).
/// - `nextURL`: `{"style": "nextURL", "urlKeyPath": "next_page_uri", "maxPages": 10}`: follows
///   the next page's URL read at `urlKeyPath` in each body (Twilio's `next_page_uri`, an
///   absolute path; Spotify's `next` and Azure's `nextLink`, absolute URLs); ends when it is
///   missing, `null` or `""`. The URL must lie under the base URL, as for `link`.
/// - `keyset`: `{"style": "keyset", "itemsKeyPath": "data", "idKeyPath": "id", "parameter":
///   "starting_after", "hasMoreKeyPath": "has_more", "maxPages": 10}` (Stripe's): sends the id
///   of the page's last item (read at `idKeyPath` in the last element of the array at
///   `itemsKeyPath`) as the query parameter `parameter`; ends when the body's `hasMoreKeyPath`
///   is not `true`, or the page has no item.
///
/// Every style also ends after `maxPages` pages (default 100) and at the first failed page.
public struct Pagination: Sendable, Hashable {
    /// The kinds of pagination.
    public enum Style: String, Sendable, Hashable, CaseIterable {
        /// Page numbers with a page size and a total.
        case page
        /// `Link: <...>; rel="next"` headers.
        case link
        /// A next-cursor in the body, sent back as a parameter.
        case cursor
        /// The next page's URL in the body.
        case nextURL
        /// The last item's id sent back as a parameter while the body says there is more.
        case keyset
    }

    /// The style.
    public var style: Style
    /// The most pages fetched (default 100).
    public var maxPages: Int = 100
    /// `page`: the page-number query parameter (default `page`).
    public var pageParameter = "page"
    /// `page`: the page-size query parameter (default `per_page`).
    public var perPageParameter = "per_page"
    /// `page`: the page size sent (required for `page`).
    public var perPage = 0
    /// `page`: the first page's number (default 1).
    public var firstPage = 1
    /// `page`: where the total number of items is in each body (required for `page`).
    package var totalKeyPath: JSONKeyPath = .root
    /// `cursor`: where the next cursor is in each body (required for `cursor`).
    package var cursorKeyPath: JSONKeyPath = .root
    /// `cursor` and `keyset`: the query parameter the cursor or the last id is sent as
    /// (default `cursor`; required for `keyset`).
    public var parameter = "cursor"
    /// `nextURL`: where the next page's URL is in each body (required for `nextURL`).
    package var urlKeyPath: JSONKeyPath = .root
    /// `keyset`: where the page's items are in each body (an array; required for `keyset`).
    package var itemsKeyPath: JSONKeyPath = .root
    /// `keyset`: where an item's id is, inside the item (default `id`).
    package var idKeyPath: JSONKeyPath = "id"
    /// `keyset`: where the body says whether more pages follow (`true`; required for `keyset`).
    package var hasMoreKeyPath: JSONKeyPath = .root

    /// Link-header pagination.
    public static func link(maxPages: Int = 100) -> Pagination { Pagination(style: .link, maxPages: maxPages) }

    /// Cursor pagination.
    public static func cursor(at keyPath: String, parameter: String = "cursor", maxPages: Int = 100) -> Pagination {
        var result = Pagination(style: .cursor, maxPages: maxPages)
        result.cursorKeyPath = JSONKeyPath(keyPath)
        result.parameter = parameter
        return result
    }

    /// Pagination by the next page's URL in each body, at `keyPath`.
    public static func nextURL(at keyPath: String, maxPages: Int = 100) -> Pagination {
        var result = Pagination(style: .nextURL, maxPages: maxPages)
        result.urlKeyPath = JSONKeyPath(keyPath)
        return result
    }

    /// Keyset pagination: the last item's id (at `id` in the last element of the array at
    /// `items`) sent as `parameter` while the body's `hasMore` is `true` (Stripe's
    /// `starting_after` and `has_more`).
    public static func keyset(items: String, id: String = "id", parameter: String, hasMore: String,
                              maxPages: Int = 100) -> Pagination {
        var result = Pagination(style: .keyset, maxPages: maxPages)
        result.itemsKeyPath = JSONKeyPath(items)
        result.idKeyPath = JSONKeyPath(id)
        result.parameter = parameter
        result.hasMoreKeyPath = JSONKeyPath(hasMore)
        return result
    }

    /// Page-number pagination.
    public static func pages(perPage: Int, totalAt keyPath: String, pageParameter: String = "page",
                             perPageParameter: String = "per_page", firstPage: Int = 1, maxPages: Int = 100) -> Pagination {
        var result = Pagination(style: .page, maxPages: maxPages)
        result.perPage = perPage
        result.totalKeyPath = JSONKeyPath(keyPath)
        result.pageParameter = pageParameter
        result.perPageParameter = perPageParameter
        result.firstPage = firstPage
        return result
    }

    private init(style: Style, maxPages: Int) {
        self.style = style
        self.maxPages = maxPages
    }

    /// Parses the config forms above.
    /// - Throws: ``ConfigError`` naming the field: an unknown style, a field of another
    ///   style, a missing required field, a count out of range.
    package init(config node: ConfigNode) throws(ConfigError) {
        let styleNode = try node.required("style")
        let name = try styleNode.string()
        guard let style = Style(rawValue: name) else {
            throw styleNode.error("unknown pagination style \"\(name)\" (expected page, link, cursor, nextURL or keyset)")
        }
        self.init(style: style, maxPages: 100)
        switch style {
        case .page:
            try node.rejectUnknownKeys(["style", "maxPages", "pageParameter", "perPageParameter", "perPage", "firstPage",
                                        "totalKeyPath"])
            perPage = Int(try node.required("perPage").integer(in: 1...1_000_000))
            totalKeyPath = JSONKeyPath(try node.required("totalKeyPath").string())
            if let value = try node.optional("pageParameter") { pageParameter = try value.string() }
            if let value = try node.optional("perPageParameter") { perPageParameter = try value.string() }
            if let value = try node.optional("firstPage") { firstPage = Int(try value.integer(in: 0...1_000_000)) }
        case .link:
            try node.rejectUnknownKeys(["style", "maxPages"])
        case .cursor:
            try node.rejectUnknownKeys(["style", "maxPages", "cursorKeyPath", "parameter"])
            cursorKeyPath = JSONKeyPath(try node.required("cursorKeyPath").string())
            if let value = try node.optional("parameter") { parameter = try value.string() }
        case .nextURL:
            try node.rejectUnknownKeys(["style", "maxPages", "urlKeyPath"])
            urlKeyPath = JSONKeyPath(try node.required("urlKeyPath").string())
        case .keyset:
            try node.rejectUnknownKeys(["style", "maxPages", "itemsKeyPath", "idKeyPath", "parameter", "hasMoreKeyPath"])
            itemsKeyPath = JSONKeyPath(try node.required("itemsKeyPath").string())
            if let value = try node.optional("idKeyPath") { idKeyPath = JSONKeyPath(try value.string()) }
            parameter = try node.required("parameter").string()
            hasMoreKeyPath = JSONKeyPath(try node.required("hasMoreKeyPath").string())
        }
        if let value = try node.optional("maxPages") { maxPages = Int(try value.integer(in: 1...1_000_000)) }
    }
}
