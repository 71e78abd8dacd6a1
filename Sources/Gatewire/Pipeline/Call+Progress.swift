/// An attempt's transfer progress, passed on to ``CallOptions/onProgress`` (loop thread).
///
/// The transport throttles the reports (``TransferProgressReporter``: at most ten a second,
/// on the monotonic clock) and makes a final one as each transfer ends. A redirect's hops are
/// transfers of one attempt: the final report of a hop the call follows on from is dropped,
/// so that each attempt has exactly one final report, its last hop's, given just before its
/// `attemptFinished` event.
extension Call {
    /// The reporter of one transfer of attempt `number`.
    func progressReporter(attempt number: Int) -> TransferProgressReporter {
        TransferProgressReporter { [self] progress in
            var progress = progress
            progress.attempt = number
            if progress.isFinal {
                endedHopProgress = progress  // reported by `reportAttemptProgress` unless a redirect follows
            } else {
                onProgress?(progress)
            }
        }
    }

    /// The ended attempt's final report, once (nothing when no one listens).
    func reportAttemptProgress() {
        guard let progress = endedHopProgress else { return }
        endedHopProgress = nil
        onProgress?(progress)
    }
}

/// Sees a call's ``TransferProgress``: per attempt, at most ten reports a second while bytes
/// move, then exactly one final report (``TransferProgress/isFinal``) just before the
/// attempt's `attemptFinished` event. Runs on the client's event-loop thread and must not
/// block. Counts are bytes; a nil total is unknown.
public typealias ProgressHandler = @Sendable (TransferProgress) -> Void
