/// The text of `gatewire --help` (the reference of every command and option) and the usage
/// line that usage errors print.

let usage = """
    usage: gatewire call [--config FILE] [--base-url URL] (ROUTE | METHOD PATH) [options]
           gatewire check [--no-load-plugins] CONFIG
           gatewire --version | --help
    """

let help = usage + """

    gatewire call: sends one call through a gateway config and prints the result.
      ROUTE                   a route name of the config (its method and path pattern)
      METHOD PATH             e.g. GET /users/:id (PATH is relative to the base URL)
      --config FILE           the gateway config (JSON); optional when --base-url is given
      --base-url URL          replaces the config's baseURL
      --param k=v             fills the path's :k segment, else adds k=v to the query
                              (repeatable; a name given twice is a list, written in the
                              config's "arrayParameters" style: k=1&k=2 by default)
      --header 'Name: value'  an extra request header (repeatable); the name must be a token, not
                              a framing field (Content-Length, Connection...), and the value
                              free of control characters but HTAB (RFC 9110 sections 5.1, 5.5)
      --body JSON             the request body; mapped by the request descriptor of the route's
                              objectType or of --object-type, else sent as is
      --object-type TYPE      the object type whose request descriptor maps --body
      --data k=v              a form field (repeatable, in order): the body is
                              application/x-www-form-urlencoded (space "+", every byte outside
                              RFC 3986's unreserved set %XX)
      --data-binary @FILE     the body is FILE's bytes as they are (or the text itself without
                              the @), with --content-type TYPE (default application/octet-stream;
                              a --header 'Content-Type: ...' wins). One of --body, --data,
                              --data-binary and --form/--file
      --form k=v              a multipart/form-data text field (repeatable, in order with --file;
                              the value is text even when it starts with @ or <)
      --file field=@PATH[;type=TYPE][;filename=NAME]
                              a multipart/form-data file part, streamed from disk (curl's -F
                              syntax); filename default PATH's last component, type default
                              guessed from its extension. With --body of an object type, the
                              object's mapped fields come first. A file that cannot be read
                              fails the call (invalid_argument) before anything is sent
      --user NAME:PASSWORD    HTTP Basic credentials instead of the config's auth
      --max-retries N         retries after the first attempt, 0...100 (replaces only maxRetries
                              of the route's retry policy, else the config's; -1 keeps it)
      --deadline SECONDS      overall time limit of the call, retries included, 0.001...86400
                              (0: the config's timeouts.deadline)
      --redirects WHICH       none, same-origin or any (default: the config's "redirects",
                              else any): which redirects to follow. Credentials (Authorization,
                              Cookie, auth plugins' headers) and secret query parameters are
                              dropped on a change of scheme, host or port; https to http and
                              a body re-sent to another origin are refused (kind redirect)
      --max-redirects N       hops followed at most, 0...50 (default: the config's, else 10)
      --max-response-bytes N  the largest decoded response body accepted, in bytes (default:
                              the route's, else the config's maxResponseBytes, else 64 MiB);
                              a larger one aborts the transfer: kind response_too_large
      --cookie-jar FILE       keep cookies in FILE (Netscape format, as curl's -b FILE -c FILE):
                              loaded before the call, written back after it (a new mode-0600
                              file renamed onto FILE; a FILE that is a symbolic link is refused);
                              replaces the config's "cookies". libcurl's rules decide which
                              cookie goes where
      --verbose, -v           on stderr: every attempt as it happens (status or error, time,
                              delay, why it retried or stopped, the redirects it followed),
                              what the global failure observer saw, and "cache: hit" or
                              "cache: revalidated" when the config's HTTP cache ("cache")
                              answered; on a terminal, a backoff wait is counted down once a
                              second
      --output FILE, -o FILE  write a 2xx body to FILE (through a temporary file renamed on
                              success; a retry resumes a partial body with Range when the
                              server gave a validator); the summary or error goes to stderr.
                              --output - writes the result to stdout even on a terminal
      --all-pages             follow the route's pagination: one compact JSON line per page
                              (JSON Lines); a failed page prints its error line and exits 1.
                              Needs a ROUTE (a config route's "pagination"), not METHOD PATH.
                              On a terminal, stderr shows the page being fetched
      When stderr is a terminal, an attempt whose transfer takes longer than 0.5 s draws a
      progress bar there (size, rate, ETA), which ends with the final size.
      Prints the mapped result as JSON (when no descriptor matched, the body: re-indented
      when it parses as JSON, else its bytes as received), exit 0;
      a failed call prints the error as JSON (kind, status, message, error objects), exit 1.
      On a terminal, a result that is not UTF-8 text or has a control character other than
      tab, line feed and carriage return (an escape sequence can clear the screen or retitle
      the window) is not written: stderr says so, exit 1; use --output FILE, or --output -
      to write it anyway. Piped or redirected, the result is written as it is.

    gatewire check [--no-load-plugins] CONFIG: validates a gateway config; prints warnings
      (e.g. ambiguous descriptors, a retry maxDelay below its initialDelay, verifyTLS false)
      and OK with exit 0, or on stderr "CONFIG: error: FIELD: why" (without FIELD when the
      whole file is wrong), exit 1.
      It loads the config's shared-object plugins (each "plugins" entry with a "path") and
      calls their entries, as call does: that runs the objects' code. To check a config you
      do not trust, give --no-load-plugins: everything else is checked, and each shared
      object is listed by its path (it must be a readable file) without being opened.

    Usage errors exit 2.
    """
