import CJansson
import GatewireJSON

/// A tree built on a worker is released on that worker, whose arena holds it: the pipeline
/// joins the two layers, so neither JSON nor the transport knows the other.
extension WorkerPool.Home: JSONTreeHome {
    package func release(_ tree: UnsafeMutablePointer<json_t>) -> Bool { pool.release(tree, home: worker) }
}
