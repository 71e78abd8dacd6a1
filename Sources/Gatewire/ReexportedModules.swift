// `import Gatewire` is the one import a Swift program needs: the public types of the lower
// layers (HTTP method, headers, error kinds; JSON values, nodes and key paths) are part of
// this module's API.
@_exported import GatewireBase
@_exported import GatewireJSON
@_exported import GatewireMapping
@_exported import GatewireTransport
