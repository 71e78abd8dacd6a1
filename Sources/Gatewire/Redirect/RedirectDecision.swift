/// What ``RedirectPolicy/decide(after:status:location:followed:secrets:)`` says about one response.
package enum RedirectDecision: Sendable {
    /// Not a redirect (another status, or no `Location`): the response is the attempt's.
    case final
    /// Send this request next, in the same attempt.
    case follow(HTTPRequest)
    /// A redirect the policy does not follow, and why (for the `redirect` failure's message).
    case refuse(String)
}
