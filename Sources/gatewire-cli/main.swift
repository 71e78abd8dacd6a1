import Gatewire
import Glibc

/// `gatewire`: runs calls through a gateway config and checks configs. `gatewire --help`
/// prints the options (`help` in Help.swift is the reference).

var arguments = CommandLine.arguments.dropFirst()
switch arguments.popFirst() {
case "call": call(arguments)
case "check": check(arguments)
case "--version": printLine("gatewire \(Version.string)"); exit(0)
case "--help", "-h", "help": printLine(help); exit(0)
case nil: fail(usage)
case let command?: fail("unknown command \"\(command)\"\n\(usage)")
}
