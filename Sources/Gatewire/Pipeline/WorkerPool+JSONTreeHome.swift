import GatewireJSON

/// A tree built on a worker is released on that worker, whose arena holds it: the pipeline
/// joins the two layers, so neither JSON nor the transport knows the other.
extension WorkerPool.Home: JSONTreeHome {
    package func release(_ release: @escaping @Sendable () -> Void) -> Bool {
        pool.release(on: worker, release)
    }
}
