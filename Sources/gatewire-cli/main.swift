import Gatewire
import Glibc

/// `gatewire`: runs calls through a gateway config, checks configs, prints the shared state and
/// imports OpenAPI documents as configs. `gatewire --help`
/// prints the commands and the exit statuses, `gatewire help COMMAND` a command's options
/// (Help.swift holds every text).

var arguments = CommandLine.arguments.dropFirst()
switch arguments.popFirst() {
case "call": call(arguments)
case "check": check(arguments)
case "state": state(arguments)
case "import": importCommand(arguments)
case "help": printHelp(of: arguments)
case "--version": printLine("gatewire \(Version.string)"); exit(ExitStatus.success)
case "--help", "-h": printLine(Help.overview); exit(ExitStatus.success)
case nil: fail("a command is missing", usage: Help.usage)
case let command?: fail("unknown command \"\(command)\"", usage: Help.usage)
}

/// `gatewire help [COMMAND]`: the command's help, or the overview without one.
func printHelp(of arguments: ArraySlice<String>) -> Never {
    guard arguments.count <= 1 else { fail("help takes one command at most", usage: Help.usage) }
    switch arguments.first {
    case nil: printLine(Help.overview)
    case "call": printLine(Help.call)
    case "check": printLine(Help.check)
    case "state": printLine(Help.state)
    case "import": printLine(Help.importCommand)
    case let command?: fail("unknown command \"\(command)\"", usage: Help.usage)
    }
    exit(ExitStatus.success)
}
