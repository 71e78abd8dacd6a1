// `import Gatewire` is the one import a Swift program needs: the public types of the lower
// layers (HTTP method, headers, error kinds, the redactor; JSON values, nodes, key paths and
// the config reader; object mappings and dates; descriptors, path patterns, the response
// mapper; HTTP requests and responses) are part of this module's API.
@_exported import GatewireBase
@_exported import GatewireDescriptors
@_exported import GatewireJSON
@_exported import GatewireMapping
@_exported import GatewireTransport
