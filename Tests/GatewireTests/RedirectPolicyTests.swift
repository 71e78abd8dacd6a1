import Gatewire
import Testing

/// ``RedirectPolicy`` decides each hop without a server: method and body (RFC 9110 section
/// 15.4), what an origin change (RFC 6454) drops, and what it refuses.
@Suite struct RedirectPolicyTests {
    let secrets = Redactor(headers: ["X-Api-Key"], queryParameters: ["sig"])
    let policy = RedirectPolicy()

    func request(_ method: HTTPMethod = .get, _ url: String = "http://api.test/a", body: String? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = ["Authorization": "Bearer t", "Proxy-Authorization": "Basic p", "Cookie": "s=1",
                                    "X-Api-Key": "k", "Host": "api.test", "Accept": "application/json"]
        if body != nil { headers.set("Content-Type", "application/json") }
        return HTTPRequest(method: method, url: url, headers: headers, body: body.map { Array($0.utf8) })
    }

    func next(_ decision: RedirectDecision) -> HTTPRequest? {
        if case .follow(let request) = decision { return request }
        return nil
    }

    func refusal(_ decision: RedirectDecision) -> String? {
        if case .refuse(let reason) = decision { return reason }
        return nil
    }

    @Test func onlyTheFiveRedirectStatusesWithALocationAreFollowed() {
        for status in [300, 304, 305, 306, 200, 404] {
            guard case .final = policy.decide(after: request(), status: status, location: "http://api.test/b",
                                              followed: 0, secrets: secrets) else {
                Issue.record("\(status) is not a redirect")
                continue
            }
        }
        guard case .final = policy.decide(after: request(), status: 302, location: nil, followed: 0, secrets: secrets) else {
            Issue.record("a 302 without Location is the response")
            return
        }
    }

    @Test(arguments: [
        (301, HTTPMethod.post, HTTPMethod.get, false), (302, .post, .get, false), (303, .post, .get, false),
        (303, .put, .get, false), (303, .head, .head, false), (301, .put, .put, true), (302, .patch, .patch, true),
        (307, .post, .post, true), (308, .put, .put, true),
    ])
    func methodAndBodyFollowRFC9110(status: Int, method: HTTPMethod, expected: HTTPMethod, keepsBody: Bool) throws {
        let body = method == .head ? nil : #"{"a":1}"#
        let hop = try #require(next(policy.decide(after: request(method, body: body), status: status,
                                                  location: "http://api.test/b", followed: 0, secrets: secrets)))
        #expect(hop.method == expected)
        #expect((hop.body != nil) == (keepsBody && body != nil))
        #expect(hop.headers.contains("Content-Type") == (keepsBody && body != nil))
        #expect(hop.url == "http://api.test/b")
    }

    @Test func theSameOriginKeepsEveryHeader() throws {
        let hop = try #require(next(policy.decide(after: request(), status: 302, location: "http://API.test:80/b?sig=1",
                                                  followed: 0, secrets: secrets)))
        #expect(hop.headers == request().headers)
        #expect(hop.url == "http://API.test:80/b?sig=1")
    }

    @Test(arguments: ["http://other.test/b?sig=9&q=1&SIG=2", "http://api.test:8080/b?sig=9&q=1&SIG=2",
                      "https://api.test/b?sig=9&q=1&SIG=2"])
    func anotherOriginDropsEveryCredentialAndSecretParameter(location: String) throws {
        let hop = try #require(next(policy.decide(after: request(), status: 302, location: location, followed: 0,
                                                  secrets: secrets)))
        #expect(hop.headers.map(\.name) == ["Accept"])
        #expect(hop.url == location.replacing("?sig=9&q=1&SIG=2", with: "?q=1"))
    }

    @Test func aSecretOnlyQueryLeavesNoQuestionMark() throws {
        let hop = try #require(next(policy.decide(after: request(), status: 302, location: "http://other.test/b?api_key=1",
                                                  followed: 0, secrets: secrets)))
        #expect(hop.url == "http://other.test/b")
    }

    @Test func aBodyIsNotResentToAnotherOriginUnlessAllowed() throws {
        let post = request(.post, body: "{}")
        let reason = try #require(refusal(policy.decide(after: post, status: 307, location: "http://other.test/b",
                                                        followed: 0, secrets: secrets)))
        #expect(reason == "a 307 would re-send the POST body to another origin (http://other.test:80) (redirects.allowCrossOriginBody is false)")
        let allowing = RedirectPolicy(allowCrossOriginBody: true)
        let hop = try #require(next(allowing.decide(after: post, status: 308, location: "http://other.test/b", followed: 0,
                                                    secrets: secrets)))
        #expect(hop.body == Array("{}".utf8) && !hop.headers.contains("Authorization"))
        // A 303 drops the body first, so the hop to another origin is fine.
        #expect(next(policy.decide(after: post, status: 303, location: "http://other.test/b", followed: 0, secrets: secrets))?.method == .get)
    }

    @Test func httpsToHttpIsRefusedUnlessAllowed() throws {
        let secure = request(.get, "https://api.test/a")
        let reason = refusal(policy.decide(after: secure, status: 301, location: "http://api.test/a", followed: 0, secrets: secrets))
        #expect(reason == "it would downgrade https to http (redirects.allowDowngrade is false)")
        let hop = try #require(next(RedirectPolicy(allowDowngrade: true).decide(
            after: secure, status: 301, location: "http://api.test/a", followed: 0, secrets: secrets)))
        #expect(!hop.headers.contains("Authorization"))  // a scheme change is an origin change
    }

    @Test func followNoneSameOriginMaxAndSchemesRefuse() {
        let none = RedirectPolicy(follow: .none)
        #expect(refusal(none.decide(after: request(), status: 302, location: "http://api.test/b", followed: 0, secrets: secrets))
            == #"following redirects is off (redirects.follow is "none")"#)
        let same = RedirectPolicy(follow: .sameOrigin)
        #expect(next(same.decide(after: request(), status: 302, location: "http://api.test/b", followed: 0, secrets: secrets)) != nil)
        #expect(refusal(same.decide(after: request(), status: 302, location: "http://api.test:81/b", followed: 0, secrets: secrets))
            == #"it leaves the origin http://api.test:80 (redirects.follow is "sameOrigin")"#)
        #expect(next(policy.decide(after: request(), status: 302, location: "http://api.test/b", followed: 9, secrets: secrets)) != nil)
        #expect(refusal(policy.decide(after: request(), status: 302, location: "http://api.test/b", followed: 10, secrets: secrets))
            == "more than 10 redirects (redirects.max)")
        #expect(refusal(policy.decide(after: request(), status: 302, location: "ftp://api.test/b", followed: 0, secrets: secrets))
            == "the target is not an http or https URL")
    }

    @Test func theConfigKeysAreCheckedAndRoutesInherit() throws {
        let base = #""baseURL": "http://127.0.0.1:1""#
        let config = try GatewayConfig(json: #"""
            {\#(base), "redirects": {"follow": "sameOrigin", "max": 3},
             "routes": {"r": {"method": "GET", "pathPattern": "/r", "redirects": {"allowDowngrade": true}},
                        "off": {"method": "GET", "pathPattern": "/o", "redirects": false}}}
            """#)
        #expect(config.redirectPolicy == RedirectPolicy(follow: .sameOrigin, maxRedirects: 3))
        #expect(config.routes["r"]?.redirectPolicy == RedirectPolicy(follow: .sameOrigin, maxRedirects: 3, allowDowngrade: true))
        #expect(config.routes["off"]?.redirectPolicy?.follow == RedirectPolicy.Follow.none)
        #expect(try GatewayConfig(baseURL: "http://127.0.0.1:1").redirectPolicy
            == RedirectPolicy(follow: .any, maxRedirects: 10, allowDowngrade: false, allowCrossOriginBody: false))
        let word = configError(#"{\#(base), "redirects": {"follow": "same-origin"}}"#)
        #expect(word?.description == #"redirects.follow: unknown value "same-origin" (expected one of: "none", "sameOrigin", "any")"#)
        #expect(configError(#"{\#(base), "redirects": {"max": 51}}"#)?.description == "redirects.max: 51 is out of range 0...50")
        #expect(configError(#"{\#(base), "redirects": {"max": 2.5}}"#)?.description == "redirects.max: expected an integer, got a number")
        #expect(configError(#"{\#(base), "redirects": {"allowDowngrade": "yes"}}"#)?.description
            == "redirects.allowDowngrade: expected true or false, got a string")
        #expect(configError(#"{\#(base), "redirects": true}"#)?.path == "redirects")
        #expect(configError(#"{\#(base), "redirects": {"folow": "any"}}"#)?.description
            == "redirects.folow: unknown field (expected one of: allowCrossOriginBody, allowDowngrade, follow, max)")
    }
}
