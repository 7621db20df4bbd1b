import ArgumentParser
import CassetteTools
import WellPlateCore

/// `--redact-all-cookies`, for every command that stores what it redacts (`record`, `run`,
/// `replay --on-miss record`, `redact`): one flag with one meaning, `"redact": {"cookies": "all"}`
/// in cassette.json.
struct CookieRedactionFlags: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "Store every cookie value as REDACTED, not only those of session and other credential cookies (as \"redact\": {\"cookies\": \"all\"} in cassette.json)."
        ))
    var redactAllCookies = false

    /// The redactor of `configFile`, replacing every cookie value when the flag is given.
    func redactor(from configFile: CassetteConfigFile) -> Redactor {
        redactAllCookies ? configFile.redactor.redactingAllCookies : configFile.redactor
    }
}
