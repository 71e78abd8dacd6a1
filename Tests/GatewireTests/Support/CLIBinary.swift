import Glibc

/// The `gatewire` executable a test runs: the one SwiftPM built next to the test bundle, else
/// the repository's `.build/debug/gatewire`. Shared by the test targets that run the CLI
/// (symlinked where another target needs it).
enum CLIBinary {
    /// The first of the two candidates that is executable, or nil (with the candidates, for
    /// the caller's message) when neither is.
    static func find(repoRoot: String) -> (path: String?, candidates: [String]) {
        var candidates: [String] = []
        if let test = CommandLine.arguments.first, let slash = test.lastIndex(of: "/") {
            var folder = String(test[..<slash])
            while folder.hasSuffix(".xctest") || folder.hasSuffix("/Contents/MacOS") {
                folder = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
            }
            candidates.append(folder + "/gatewire")
        }
        candidates.append(repoRoot + "/.build/debug/gatewire")
        return (candidates.first { access($0, X_OK) == 0 }, candidates)
    }
}
