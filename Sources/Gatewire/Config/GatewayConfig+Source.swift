extension GatewayConfig {
    /// Where a client's gateway config comes from: JSON text or a file, each with an optional
    /// base URL that replaces the config's `baseURL` (e.g. a test server on a free port), or a
    /// base URL alone (a config with only it and every default).
    ///
    /// The one rule of every front-end: the C `gw_client_options` (`config_json`,
    /// `config_path`, `base_url`), the CLI's `--config FILE` and `--base-url URL`, Python's
    /// `config`, `config_path` and `base_url` (through C), and ``Client``'s
    /// `init(baseURL:plugins:)` and `init(configFile:plugins:)`. Each front-end words the
    /// ``Problem`` in its own names.
    package enum Source: Sendable, Equatable {
        /// Gateway config JSON text; `baseURL` replaces the config's when given.
        case json(String, baseURL: String? = nil)
        /// The path of a gateway config file (UTF-8 JSON; a shared-object plugin's relative
        /// path is relative to its directory); `baseURL` replaces the config's when given.
        case file(String, baseURL: String? = nil)
        /// Only a base URL: every other setting is its default.
        case baseURL(String)

        /// Why what the caller set names no source.
        package enum Problem: Error, Sendable, Equatable {
            /// Neither JSON text, nor a file, nor a base URL.
            case missing
            /// Both JSON text and a file: one config, so one of them.
            case jsonAndFile
        }

        /// The source of what the caller set (nil: not set): `json` or `file`, not both, with
        /// `baseURL` replacing its base URL; else `baseURL` alone. Pure; any thread.
        /// - Throws: ``Problem/missing`` when nothing is set, ``Problem/jsonAndFile`` when
        ///   both `json` and `file` are.
        package init(json: String?, file: String?, baseURL: String?) throws(Problem) {
            switch (json, file) {
            case (let json?, nil): self = .json(json, baseURL: baseURL)
            case (nil, let file?): self = .file(file, baseURL: baseURL)
            case (_?, _?): throw .jsonAndFile
            case (nil, nil):
                guard let baseURL else { throw .missing }
                self = .baseURL(baseURL)
            }
        }

        /// Reads the config: parses the JSON text or the file, then replaces its base URL when
        /// one was given; or makes a config with only the base URL. Reads the file, if any, on
        /// the calling thread; any thread.
        /// - Throws: ``ConfigError``: the config's own (it names the field; for a file that
        ///   cannot be read or parsed, the file), or path `baseURL` for a base URL that is not
        ///   an absolute http(s) URL (``GatewayConfig/baseURLProblem(_:)``).
        package func load() throws(ConfigError) -> GatewayConfig {
            var config: GatewayConfig
            let replacement: String?
            switch self {
            case .json(let text, let baseURL):
                config = try GatewayConfig(json: text)
                replacement = baseURL
            case .file(let path, let baseURL):
                config = try GatewayConfig(contentsOfFile: path)
                replacement = baseURL
            case .baseURL(let baseURL):
                return try GatewayConfig(baseURL: baseURL)
            }
            if let replacement { try config.replaceBaseURL(with: replacement) }
            return config
        }
    }
}
