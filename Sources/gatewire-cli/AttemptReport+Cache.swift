import Gatewire

extension AttemptReport {
    /// With --verbose, where a response came from when the config's HTTP cache gave it:
    /// "cache: hit (no request sent)" or "cache: revalidated (304: the stored response)".
    func printCache(of response: Response) {
        guard verbose, response.fromCache else { return }
        printError(response.revalidated ? "cache: revalidated (304: the stored response)" : "cache: hit (no request sent)")
    }
}
