// `import Gatewire` is the one import a Swift program needs: the public types of the lower
// layers (HTTP method, headers, error kinds) are part of this module's API.
@_exported import GatewireBase
