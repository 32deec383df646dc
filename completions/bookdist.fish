# fish completion for bookdist. Generated from the command tree by `bookdist completion fish`; do not edit.
# Install:                    bookdist completion fish > ~/.config/fish/completions/bookdist.fish
# Load in the current shell:  bookdist completion fish | source
# Type codes: arity (n none, r required value, o optional value), then the value's kind
# (- anything, f a file path, p a profile's name (stored ones and the built-in sandbox), s a stored
# profile's name, c one of the choices listed after a space, i an id of the completion cache, its
# kind after a space).

# The reader of the completion cache of ids (see __bookdist_ids)
set -g __bookdist_ids_awk 'BEGIN { FS = "\\t"; p = ENVIRON["BDC_TYPED"]; lp = tolower(p); mode = ENVIRON["BDC_MODE"]; x = ENVIRON["BDC_BEFORE"]; max = 100 }
$1 == "" || ($1 in seen) { next }
{
  seen[$1] = 1
  ok = (p == "" || index($1, p) == 1)
  if (!ok && mode == "desc" && index(ld = tolower($2), lp)) {
    m = split(ld, w, /[[:space:][:punct:]]+/)
    for (j = 1; j <= m && !ok; j++) ok = (index(w[j], lp) == 1)
  }
  if (!ok) next
  if (mode == "desc") print x $1 "\\t" $2; else print x $1
  if (++shown >= max) exit
}'

# the subcommand that $word names under $cmdpath (or nothing)
function __bookdist_cmd --argument-names cmdpath word
    switch "$cmdpath/$word"
        case '/status'
            echo 'status'
        case '/whoami'
            echo 'whoami'
        case '/describe'
            echo 'describe'
        case '/api'
            echo 'api'
        case '/profile'
            echo 'profile'
        case '/sandbox'
            echo 'sandbox'
        case '/book'
            echo 'book'
        case '/user'
            echo 'user'
        case '/order'
            echo 'order'
        case '/codes'
            echo 'codes'
        case '/import'
            echo 'import'
        case '/access'
            echo 'access'
        case '/offers'
            echo 'offers'
        case '/ledger'
            echo 'ledger'
        case '/completion'
            echo 'completion'
        case '/help'
            echo 'help'
        case 'profile/add'
            echo 'add'
        case 'profile/list' 'profile/ls'
            echo 'list'
        case 'profile/show'
            echo 'show'
        case 'profile/use'
            echo 'use'
        case 'profile/remove' 'profile/rm'
            echo 'remove'
        case 'profile/check'
            echo 'check'
        case 'profile/help'
            echo 'help'
        case 'sandbox/serve'
            echo 'serve'
        case 'sandbox/credentials'
            echo 'credentials'
        case 'sandbox/openapi'
            echo 'openapi'
        case 'sandbox/reset'
            echo 'reset'
        case 'sandbox/catalogue'
            echo 'catalogue'
        case 'sandbox/clock'
            echo 'clock'
        case 'sandbox/usage'
            echo 'usage'
        case 'sandbox/redeem'
            echo 'redeem'
        case 'sandbox/outbox'
            echo 'outbox'
        case 'sandbox/requests'
            echo 'requests'
        case 'sandbox/fixtures'
            echo 'fixtures'
        case 'sandbox/snapshot'
            echo 'snapshot'
        case 'sandbox/workspace'
            echo 'workspace'
        case 'sandbox/help'
            echo 'help'
        case 'sandbox catalogue/load'
            echo 'load'
        case 'sandbox catalogue/help'
            echo 'help'
        case 'sandbox clock/advance'
            echo 'advance'
        case 'sandbox clock/show'
            echo 'show'
        case 'sandbox clock/help'
            echo 'help'
        case 'sandbox requests/list'
            echo 'list'
        case 'sandbox requests/show'
            echo 'show'
        case 'sandbox requests/tail'
            echo 'tail'
        case 'sandbox requests/verify'
            echo 'verify'
        case 'sandbox requests/clear'
            echo 'clear'
        case 'sandbox requests/help'
            echo 'help'
        case 'sandbox fixtures/apply'
            echo 'apply'
        case 'sandbox fixtures/help'
            echo 'help'
        case 'sandbox snapshot/save'
            echo 'save'
        case 'sandbox snapshot/load'
            echo 'load'
        case 'sandbox snapshot/list'
            echo 'list'
        case 'sandbox snapshot/rm'
            echo 'rm'
        case 'sandbox snapshot/diff'
            echo 'diff'
        case 'sandbox snapshot/help'
            echo 'help'
        case 'sandbox workspace/create'
            echo 'create'
        case 'sandbox workspace/list'
            echo 'list'
        case 'sandbox workspace/rm'
            echo 'rm'
        case 'sandbox workspace/help'
            echo 'help'
        case 'book/get'
            echo 'get'
        case 'book/pricing'
            echo 'pricing'
        case 'book/search'
            echo 'search'
        case 'book/list'
            echo 'list'
        case 'book/viewer'
            echo 'viewer'
        case 'book/process'
            echo 'process'
        case 'book/help'
            echo 'help'
        case 'user/invite'
            echo 'invite'
        case 'user/create'
            echo 'create'
        case 'user/get'
            echo 'get'
        case 'user/orders'
            echo 'orders'
        case 'user/purchase'
            echo 'purchase'
        case 'user/help'
            echo 'help'
        case 'order/create'
            echo 'create'
        case 'order/refund'
            echo 'refund'
        case 'order/free'
            echo 'free'
        case 'order/help'
            echo 'help'
        case 'codes/generate'
            echo 'generate'
        case 'codes/summary'
            echo 'summary'
        case 'codes/help'
            echo 'help'
        case 'import/search'
            echo 'search'
        case 'import/help'
            echo 'help'
        case 'access/allow'
            echo 'allow'
        case 'access/revoke'
            echo 'revoke'
        case 'access/sync'
            echo 'sync'
        case 'access/help'
            echo 'help'
        case 'offers/get'
            echo 'get'
        case 'offers/checkout'
            echo 'checkout'
        case 'offers/help'
            echo 'help'
        case 'ledger/list'
            echo 'list'
        case 'ledger/show'
            echo 'show'
        case 'ledger/verify'
            echo 'verify'
        case 'ledger/export'
            echo 'export'
        case 'ledger/prune'
            echo 'prune'
        case 'ledger/reconcile'
            echo 'reconcile'
        case 'ledger/help'
            echo 'help'
        case 'completion/bash'
            echo 'bash'
        case 'completion/zsh'
            echo 'zsh'
        case 'completion/fish'
            echo 'fish'
        case 'completion/refresh'
            echo 'refresh'
        case 'completion/help'
            echo 'help'
    end
end

# the subcommands of $cmdpath (name, tab, summary)
function __bookdist_cmds --argument-names cmdpath
    switch "$cmdpath"
        case ''
            printf '%s\t%s\n' 'status' 'show the service index: API versions and host' 'whoami' 'show the calling account: profile and scopes' 'describe' 'list every endpoint of the service with its fields' 'api' 'send a raw signed request, like `gh api`' 'profile' 'manage stored profiles: service URL, username and credentials' 'sandbox' 'run the local sandbox service and its testing controls' 'book' 'look up, search and list books; reader URLs; processing' 'user' 'create, invite and look up users; their orders and purchases' 'order' 'report orders, refund them, create free orders' 'codes' 'generate redemption codes and read their statistics' 'import' 'search imported titles that are not for sale yet' 'access' 'grant or revoke a user\'s access to a book' 'offers' 'price offers for an ISBN and pre-filled cart links' 'ledger' 'the local record of every write: list, verify, export, reconcile' 'completion' 'shell completion scripts (bash, zsh, fish) and their cache of ids' 'help' 'show the help of a command, e.g. `bookdist help book get`'
        case 'profile'
            printf '%s\t%s\n' 'add' 'store a profile (prompts on a terminal, flags in scripts)' 'list' 'list stored profiles; * marks the current one' 'show' 'show each resolved setting and where it came from (secrets redacted)' 'use' 'make a profile the current one ("sandbox" for the built-in sandbox)' 'remove' 'delete a profile and its copied key' 'check' 'verify a profile\'s credentials and show its account, scopes and test mode' 'help' 'display help for command'
        case 'sandbox'
            printf '%s\t%s\n' 'serve' 'run the sandbox service in the foreground' 'credentials' 'print the seeded accounts and operator token of a sandbox database' 'openapi' 'print the OpenAPI 3.1 document of the service' 'reset' 'recreate the sandbox database from the seed (new keys and secrets)' 'catalogue' 'bring your own catalogue: load ONIX 3.0 or CSV titles into the sandbox' 'clock' 'show or move the sandbox clock (expirations, refund windows)' 'usage' 'record pages read and printed by a user in a book (counts for refunds)' 'redeem' 'redeem a code for a user (counts in the code summary, gives access)' 'outbox' 'list the e-mails the service would have sent' 'requests' 'the request journal: list, show, tail, verify (assert in CI), clear' 'fixtures' 'set the sandbox up for a test from a file of named steps' 'snapshot' 'save, load, list, remove and compare snapshots of the sandbox database' 'workspace' 'isolated workspaces of a running sandbox, one per parallel CI job: create, list, rm' 'help' 'display help for command'
        case 'sandbox catalogue'
            printf '%s\t%s\n' 'load' 'load an ONIX 3.0 or CSV catalogue file into the sandbox (adds, updates, withdraws)' 'help' 'display help for command'
        case 'sandbox clock'
            printf '%s\t%s\n' 'advance' 'move the sandbox clock forward' 'show' 'show the sandbox\'s notion of now and the offset from real time' 'help' 'display help for command'
        case 'sandbox requests'
            printf '%s\t%s\n' 'list' 'list the requests the sandbox served (its request journal)' 'show' 'show one journaled request: headers, bodies, what it changed, its e-mails' 'tail' 'follow the requests as the sandbox serves them, until Ctrl-C' 'verify' 'assert how many journaled requests match (exit 0), else print a diff (exit 1)' 'clear' 'empty the request journal (ids go on from where they were)' 'help' 'display help for command'
        case 'sandbox fixtures'
            printf '%s\t%s\n' 'apply' 'set the sandbox up from a fixture file of named steps (JSON or YAML)' 'help' 'display help for command'
        case 'sandbox snapshot'
            printf '%s\t%s\n' 'save' 'save the sandbox database\'s current state as a named snapshot' 'load' 'put the sandbox database back in the state of a snapshot' 'list' 'list the snapshots of the sandbox database' 'rm' 'delete a snapshot' 'diff' 'what changed between two snapshots (or a snapshot and now), table by table' 'help' 'display help for command'
        case 'sandbox workspace'
            printf '%s\t%s\n' 'create' 'create an isolated workspace in a running sandbox and print its credentials and base URL' 'list' 'list the workspaces a running sandbox serves' 'rm' 'stop a workspace\'s server and delete its database' 'help' 'display help for command'
        case 'book'
            printf '%s\t%s\n' 'get' 'show one book by hash id, ISBN or SKU' 'pricing' 'show the digital pricing of a book by ISBN' 'search' 'search books by ISBN, title, author or hash id' 'list' 'list the books your account controls' 'viewer' 'print the reader URL of a book for a user' 'process' 'queue books for processing, optionally waiting until they are processed' 'help' 'display help for command'
        case 'user'
            printf '%s\t%s\n' 'invite' 'create a user and e-mail an invitation' 'create' 'create a user silently and show its password once' 'get' 'show a user by username or e-mail' 'orders' 'list a user\'s completed orders with their items' 'purchase' 'show one purchase (order item) of a user' 'help' 'display help for command'
        case 'order'
            printf '%s\t%s\n' 'create' 'report an order processed outside the service' 'refund' 'refund an order, or some of its items' 'free' 'give a user free access to a book' 'help' 'display help for command'
        case 'codes'
            printf '%s\t%s\n' 'generate' 'generate redemption codes for a book, any number, resumably' 'summary' 'show how many codes you generated and how many were redeemed' 'help' 'display help for command'
        case 'import'
            printf '%s\t%s\n' 'search' 'search imported titles by title, author or ISBN' 'help' 'display help for command'
        case 'access'
            printf '%s\t%s\n' 'allow' 'grant a user access to a book (one, or many from a CSV file)' 'revoke' 'revoke a user\'s access to a book (one, or many from a CSV file)' 'sync' 'make a book\'s grants match a roster: allow who is new, revoke who left' 'help' 'display help for command'
        case 'offers'
            printf '%s\t%s\n' 'get' 'list the price offers of a book by ISBN' 'checkout' 'print the URL of a cart pre-filled with offers' 'help' 'display help for command'
        case 'ledger'
            printf '%s\t%s\n' 'list' 'list the writes recorded, newest last, with their outcome' 'show' 'show one write: its intent, outcome and settlement' 'verify' 'check the ledger\'s chain of hashes (exit 1 naming the first broken row)' 'export' 'export the writes of a period, org or label as CSV or JSON (for finance)' 'prune' 'remove the writes recorded before a date' 'reconcile' 'settle writes whose outcome is unknown, by reads and idempotent re-sends' 'help' 'display help for command'
        case 'completion'
            printf '%s\t%s\n' 'bash' 'print the bash completion script' 'zsh' 'print the zsh completion script' 'fish' 'print the fish completion script' 'refresh' 'put every book of the account into the completion cache' 'help' 'display help for command'
    end
end

# aliases of the subcommands of $cmdpath
function __bookdist_aliases --argument-names cmdpath
    switch "$cmdpath"
        case 'profile'
            printf '%s\t%s\n' 'ls' 'alias of list: list stored profiles; * marks the current one' 'rm' 'alias of remove: delete a profile and its copied key'
    end
end

# the options of $cmdpath itself (not those of its ancestors)
function __bookdist_flags --argument-names cmdpath
    switch "$cmdpath"
        case ''
            printf '%s\t%s\n' '-V' 'print the version' '--version' 'print the version' '--profile' 'stored profile to use (env BOOKDIST_PROFILE)' '--base-url' 'service base URL (env BOOKDIST_BASE_URL)' '--ca-file' 'CA certificates (PEM) to trust besides Node\'s, for a service with a private CA (env BOOKDIST_CA_FILE)' '-o' 'output format' '--output' 'output format' '--json' 'print JSON (same as -o json)' '--fields' 'only these fields of each record, dotted paths relative to the record, comma-separated (e.g. hash_id,status.is_active)' '--query' 'JMESPath expression over what --json prints (e.g. "results[].hash_id")' '--color' 'colour output; auto is off when piped, with NO_COLOR or TERM=dumb' '--no-color' 'no colour (same as --color never)' '--timeout' 'time limit per request, its retries and Retry-After waits included (e.g. 30s, 2m; at most 24h)' '--retries' 'retries on 429 (always), and on 502/503/504 and lost connections for reads and idempotent writes' '--debug' 'trace requests and responses on stderr (secrets redacted); stack traces' '-q' 'no notices or progress on stderr, only errors' '--quiet' 'no notices or progress on stderr, only errors' '-y' 'assume yes for confirmations (required in scripts)' '--yes' 'assume yes for confirmations (required in scripts)' '--no-cache' 'do not record the ids this command reads for shell completion (env BOOKDIST_CACHE=off)' '--no-ledger' 'record no write of this run in the ledger (`bookdist help ledger`; env BOOKDIST_LEDGER=off)' '--dry-run' 'print the request as a curl line (secrets redacted) and send nothing; a payload that does not match the OpenAPI document is refused (exit 2)' '--resolve' 'connect to addr when connecting to host:port, as curl --resolve does (e.g. a staging address under the production name; the certificate is still checked for host); repeatable or comma-separated (env BOOKDIST_RESOLVE)' '-h' 'display help for command' '--help' 'display help for command'
        case 'status'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'whoami'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'describe'
            printf '%s\t%s\n' '--endpoint' 'show only this endpoint (e.g. order.external)' '-h' 'display help for command' '--help' 'display help for command'
        case 'api'
            printf '%s\t%s\n' '-f' 'string field (repeatable)' '--field' 'string field (repeatable)' '-F' 'typed field: number, true/false, null or JSON (repeatable)' '--raw-field' 'typed field: number, true/false, null or JSON (repeatable)' '--input' 'read the JSON payload from a file, or - for stdin' '--auth' 'credentials to use; default from the path (access for /v1/access/, none for /)' '--store' 'send to the price comparison (store) host' '-i' 'print the status line and headers on stderr' '--include' 'print the status line and headers on stderr' '-h' 'display help for command' '--help' 'display help for command'
        case 'profile'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'profile add'
            printf '%s\t%s\n' '--name' 'profile name (letters, digits, - and _)' '--store-url' 'price comparison (store) host; defaults to the base URL' '--username' 'the partner account\'s username (30 hex characters)' '--key-file' 'RSA private key (PEM) for CryptoAuth' '--shared-key-stdin' 'read the shared key (SharedKeyAuth) from stdin' '--token-stdin' 'read the access-control token from stdin' '--idempotency-keys' 'the service honours Idempotency-Key: writes carrying one are retried after a lost answer (off unless the service promises it)' '--use' 'make it the current profile' '--force' 'replace a profile of the same name' '--no-verify' 'store it without checking the credentials against the service' '-h' 'display help for command' '--help' 'display help for command'
        case 'profile list'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'profile show'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'profile use'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'profile remove'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'profile check'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox serve'
            printf '%s\t%s\n' '--host' 'interface to listen on (anything but loopback needs --expose)' '--expose' 'allow listening on a non-loopback interface (prints what that exposes)' '--allow-host' 'another Host name the /_sandbox/ control routes answer (repeatable)' '--public-url' 'the URL that reader links and pages name (default: the bound address; never the Host header)' '--port' 'TCP port (0 picks a free one; a port in use is an error)' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR); :memory: for a throwaway database' '--process-delay' 'time the worker takes to process a queued book (at most 24h)' '--fault-rate' 'share of requests (0..1) that get an injected fault' '--fault' 'fault kind (repeatable): 503, 429, reset (the connection is closed before the request is read), drop (the request is carried out and its answer dropped: a lost answer)' '--latency' 'added to every request (e.g. 50ms; at most 10m)' '--tls' 'serve HTTPS with a certificate signed by a CA made and kept beside the database (printed at start and by `sandbox credentials`)' '--cert' 'serve HTTPS with this certificate (PEM; with --key)' '--key' 'private key (PEM) of --cert' '--journal-size' 'requests the request journal keeps (the oldest are dropped; `sandbox requests`)' '--no-journal' 'keep no request journal (`sandbox requests` then sees nothing new)' '--redact-codes' 'redact redemption codes in the request journal too (signatures, keys, tokens and passwords always are)' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox credentials'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox openapi'
            printf '%s\t%s\n' '--server' 'base URL to name under "servers"' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox reset'
            printf '%s\t%s\n' '--keep-loaded' 'keep the titles loaded from catalogue files (same hash ids and price ids)' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox catalogue'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox catalogue load'
            printf '%s\t%s\n' '--format' 'onix or csv (default: from the file name or content)' '--publisher' 'load every title under this publisher (created when new) instead of the file\'s' '--strict' 'load nothing if any record is refused' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox clock'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox clock advance'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox clock show'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox usage'
            printf '%s\t%s\n' '--username' 'the user (30 hex characters)' '--hash-id' 'the book' '--viewed' 'pages viewed to add' '--printed' 'pages printed to add' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox redeem'
            printf '%s\t%s\n' '--username' 'the user who redeems it' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox outbox'
            printf '%s\t%s\n' '--to' 'only e-mails to this address' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox requests'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox requests list'
            printf '%s\t%s\n' '--method' 'only requests with this HTTP method (GET, POST...)' '--path' 'only requests to this path; * matches any characters (/v1/order/*); a final / is optional' '--status' 'only answers with this status (201) or class (4xx)' '--account' 'only requests made as this account (its username, or operator for the operator token)' '--since' 'only requests from this time on: an ISO time, or a duration back from now (10m, 2h)' '--body' 'only requests whose body field has this value (dotted for nested fields; name alone: present) (repeatable)' '--limit' 'show at most the newest n matching requests (default 100)' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox requests show'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox requests tail'
            printf '%s\t%s\n' '--method' 'only requests with this HTTP method (GET, POST...)' '--path' 'only requests to this path; * matches any characters (/v1/order/*); a final / is optional' '--status' 'only answers with this status (201) or class (4xx)' '--account' 'only requests made as this account (its username, or operator for the operator token)' '--since' 'only requests from this time on: an ISO time, or a duration back from now (10m, 2h)' '--body' 'only requests whose body field has this value (dotted for nested fields; name alone: present) (repeatable)' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox requests verify'
            printf '%s\t%s\n' '--method' 'only requests with this HTTP method (GET, POST...)' '--path' 'only requests to this path; * matches any characters (/v1/order/*); a final / is optional' '--status' 'only answers with this status (201) or class (4xx)' '--account' 'only requests made as this account (its username, or operator for the operator token)' '--since' 'only requests from this time on: an ISO time, or a duration back from now (10m, 2h)' '--body' 'only requests whose body field has this value (dotted for nested fields; name alone: present) (repeatable)' '--count' 'exactly n requests must match' '--at-least' 'at least n requests must match' '--none' 'no request may match' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox requests clear'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox fixtures'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox fixtures apply'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox snapshot'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox snapshot save'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox snapshot load'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox snapshot list'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox snapshot rm'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox snapshot diff'
            printf '%s\t%s\n' '--db' 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)' '--url' 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox workspace'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox workspace create'
            printf '%s\t%s\n' '--from' 'start from this snapshot: NAME, one of the sandbox database, or WORKSPACE/NAME, one saved in that workspace (default: a fresh seed)' '--url' 'the running sandbox that serves the workspaces (required); the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '--db' 'the database that sandbox serves, to read its control secret from (default: sandbox.db in the data directory)' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox workspace list'
            printf '%s\t%s\n' '--url' 'the running sandbox that serves the workspaces (required); the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '--db' 'the database that sandbox serves, to read its control secret from (default: sandbox.db in the data directory)' '-h' 'display help for command' '--help' 'display help for command'
        case 'sandbox workspace rm'
            printf '%s\t%s\n' '--url' 'the running sandbox that serves the workspaces (required); the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db' '--db' 'the database that sandbox serves, to read its control secret from (default: sandbox.db in the data directory)' '-h' 'display help for command' '--help' 'display help for command'
        case 'book'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'book get'
            printf '%s\t%s\n' '--isbn' 'ISBN-10 or ISBN-13' '--sku' 'the book\'s SKU, e.g. HLP-0001' '--isbn-file' 'look up every ISBN in a file (one per line; - for stdin)' '--hash-id-file' 'look up every hash id in a file (one per line; - for stdin)' '--no-check' 'send ISBNs without verifying the check digit' '-h' 'display help for command' '--help' 'display help for command'
        case 'book pricing'
            printf '%s\t%s\n' '--isbn' 'ISBN-10 or ISBN-13 (required)' '--no-check' 'send the ISBN without verifying the check digit' '-h' 'display help for command' '--help' 'display help for command'
        case 'book search'
            printf '%s\t%s\n' '--isbn' 'ISBN to match (repeatable)' '--title' 'words of the title' '--author' 'words of the author\'s name' '--hash-id' 'hash id to match (repeatable)' '--limit' 'rows per page, a whole number (default: the service\'s, 50; with --all: 500, its maximum)' '--offset' 'rows to skip, a whole number' '--all' 'fetch every page, from --offset on; a row is listed once, and a page with no new row stops with an error naming it' '--no-check' 'send ISBNs without verifying the check digit' '-h' 'display help for command' '--help' 'display help for command'
        case 'book list'
            printf '%s\t%s\n' '--limit' 'rows per page, a whole number (default: the service\'s, 50; with --all: 500, its maximum)' '--offset' 'rows to skip, a whole number' '--all' 'fetch every page, from --offset on; a row is listed once, and a page with no new row stops with an error naming it' '-h' 'display help for command' '--help' 'display help for command'
        case 'book viewer'
            printf '%s\t%s\n' '--username' 'the reader (30 hex characters) (required)' '--hash-id' 'the book (40 hex characters) (required)' '--open' 'open the URL in a browser (on a terminal)' '-h' 'display help for command' '--help' 'display help for command'
        case 'book process'
            printf '%s\t%s\n' '--from-file' 'read hash ids from FILE, one per line (- for stdin)' '--force' 'queue again even when already processed (deletes annotations; confirms)' '--urgent' 'put the books at the head of the queue' '--wait' 'poll until every book is processed (limit: --timeout, default 30m)' '--interval' 'time between polls with --wait (100ms to 1h)' '--results' 'with the file form: write one result per book to FILE (0600, fsynced per batch; enables --resume)' '--resume' 'continue the interrupted job of --results FILE, given the same input (checked): only what has no final result is sent (no FILE yet: the job starts)' '--restart' 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over' '--concurrency' 'requests in flight at once (1 to 64)' '-h' 'display help for command' '--help' 'display help for command'
        case 'user'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'user invite'
            printf '%s\t%s\n' '--email' 'the user\'s e-mail address (required)' '--first-name' 'first name' '--last-name' 'last name' '--label' 'white label (sub-domain) under your control' '-h' 'display help for command' '--help' 'display help for command'
        case 'user create'
            printf '%s\t%s\n' '--email' 'the user\'s e-mail address (required unless --from-csv)' '--first-name' 'first name' '--last-name' 'last name' '--password-stdin' 'read the password from stdin (one line) instead of generating one' '--label' 'white label (sub-domain) under your control' '--from-csv' 'create one user per row of a CSV roster (- for stdin)' '--results' 'with the file form: write one result per row to FILE (0600, fsynced per batch; enables --resume)' '--resume' 'continue the interrupted job of --results FILE, given the same input (checked): only what has no final result is sent (no FILE yet: the job starts)' '--restart' 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over' '--concurrency' 'requests in flight at once (1 to 64)' '-h' 'display help for command' '--help' 'display help for command'
        case 'user get'
            printf '%s\t%s\n' '--email' 'look the user up by e-mail address' '-h' 'display help for command' '--help' 'display help for command'
        case 'user orders'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'user purchase'
            printf '%s\t%s\n' '--refund-data' 'also work out whether the purchase can still be refunded (slower)' '-h' 'display help for command' '--help' 'display help for command'
        case 'order'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'order create'
            printf '%s\t%s\n' '--username' 'the buyer (30 hex characters) (required unless --from-csv or --from-ndjson)' '--pricing-id' 'pricing entry sold, a whole number (repeatable; at least one unless --from-csv or --from-ndjson)' '--order-type' 'payment plan to execute, e.g. TestPlan or ExternalPlan (required unless --from-csv or --from-ndjson)' '--org' 'organization supplying the order (required unless --from-csv or --from-ndjson)' '--billing-file' 'billing address as a JSON object (- for stdin)' '--billing-name' 'billing full name' '--billing-first-name' 'billing first name (with --billing-last-name)' '--billing-last-name' 'billing last name' '--billing-company' 'billing company name' '--billing-line1' 'billing address line 1' '--billing-line2' 'billing address line 2' '--billing-city' 'billing city' '--billing-state' 'billing state or region' '--billing-postal-code' 'billing postal code' '--billing-country' 'billing country, e.g. US' '--shipping-file' 'shipping address as a JSON object, for print-on-demand books (- for stdin)' '--order-number' 'your order number, at most 20 characters; makes retries safe' '--label' 'white label (sub-domain) under your control' '--no-email' 'do not e-mail the transaction to the label\'s members (default: e-mail them)' '--from-csv' 'report one order per order number of a CSV file (- for stdin)' '--from-ndjson' 'report one order per order number of an NDJSON file (- for stdin)' '--results' 'with the file form: write one result per order to FILE (0600, fsynced per batch; enables --resume)' '--resume' 'continue the interrupted job of --results FILE, given the same input (checked): only what has no final result is sent (no FILE yet: the job starts)' '--restart' 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over' '--concurrency' 'requests in flight at once (1 to 64)' '-h' 'display help for command' '--help' 'display help for command'
        case 'order refund'
            printf '%s\t%s\n' '--order-id' 'the order, a whole number (required)' '--item' 'refund only this item (repeatable)' '--send-email' 'e-mail the refund to the user' '--no-email' 'do not e-mail the refund' '-h' 'display help for command' '--help' 'display help for command'
        case 'order free'
            printf '%s\t%s\n' '--username' 'the user (30 hex characters) (required unless --from-csv)' '--hash-id' 'the book (40 hex characters) (required unless --from-csv)' '--expires' 'when access ends (default: never)' '--label' 'white label (sub-domain) under your control' '--from-csv' 'one free order per row of a CSV file (- for stdin)' '--results' 'with the file form: write one result per row to FILE (0600, fsynced per batch; enables --resume)' '--resume' 'continue the interrupted job of --results FILE, given the same input (checked): only what has no final result is sent (no FILE yet: the job starts)' '--restart' 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over' '--concurrency' 'requests in flight at once (1 to 64)' '-h' 'display help for command' '--help' 'display help for command'
        case 'codes'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'codes generate'
            printf '%s\t%s\n' '--hash-id' 'book to generate codes for (40 hex characters) (required)' '--org' 'organization the codes are for (required)' '--count' 'how many codes in total (required)' '--limit-days' 'days of access counted from redemption (0: unlimited)' '--expires' 'hard date after which access ends (YYYY-MM-DD [HH:MM:SS] or ISO 8601)' '--samples' 'generate sample codes' '--label' 'white label sub-domain under your control' '--batch-size' 'codes per request, 1 to 1000 (the service\'s maximum per request)' '--concurrency' 'requests in flight at once (1 to 64)' '--out' 'write the codes to FILE (CSV unless -o ndjson|json); makes the job resumable' '--resume' 'continue an interrupted job that wrote to --out FILE: generate exactly the remainder (no FILE yet: the job starts, so a script may always pass --resume)' '--restart' 'abandon the interrupted job of --out FILE (the file is kept, renamed *.abandoned-*) and start over' '-h' 'display help for command' '--help' 'display help for command'
        case 'codes summary'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'import'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'import search'
            printf '%s\t%s\n' '--title' 'words of the title' '--author' 'words of the author\'s name' '--isbn' 'ISBN to match (repeatable)' '--limit' 'rows per page, a whole number (default: the service\'s, 50; with --all: 500, its maximum)' '--offset' 'rows to skip, a whole number' '--all' 'fetch every page, from --offset on; a row is listed once, and a page with no new row stops with an error naming it' '--no-check' 'send ISBNs without verifying the check digit' '-h' 'display help for command' '--help' 'display help for command'
        case 'access'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'access allow'
            printf '%s\t%s\n' '--hash-id' 'book (40 hex characters) (required unless --from-csv)' '--username' 'user (30 hex characters) (required unless --from-csv)' '--price' 'your external price, a decimal with at most two places (e.g. 12.01)' '--price-cents' 'the price in cents (1201 is 12.01)' '--expires' 'access ends then (YYYY-MM-DD [HH:MM:SS] or ISO 8601)' '--email' 'who sends out the access (tracking)' '--send-email' 'e-mail the user that access was granted' '--from-csv' 'grant one per row of a CSV file (- for stdin)' '--results' 'with the file form: write one result per row to FILE (0600, fsynced per batch; enables --resume)' '--resume' 'continue the interrupted job of --results FILE, given the same input (checked): only what has no final result is sent (no FILE yet: the job starts)' '--restart' 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over' '--concurrency' 'requests in flight at once (1 to 64)' '-h' 'display help for command' '--help' 'display help for command'
        case 'access revoke'
            printf '%s\t%s\n' '--hash-id' 'book (40 hex characters) (required unless --from-csv)' '--username' 'user (30 hex characters) (required unless --from-csv)' '--from-csv' 'revoke one per row of a CSV file (- for stdin)' '--results' 'with the file form: write one result per row to FILE (0600, fsynced per batch; enables --resume)' '--resume' 'continue the interrupted job of --results FILE, given the same input (checked): only what has no final result is sent (no FILE yet: the job starts)' '--restart' 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over' '--concurrency' 'requests in flight at once (1 to 64)' '-h' 'display help for command' '--help' 'display help for command'
        case 'access sync'
            printf '%s\t%s\n' '--hash-id' 'the book (40 hex characters) (required)' '--price' 'your external price of each new grant, e.g. 12.01 (required when the plan allows anyone)' '--assume-current' 'the previous roster (same columns): its users have access unless the ledger records otherwise' '--results' 'write one result per change to FILE (0600, fsynced per batch; enables --resume)' '--resume' 'continue the interrupted job of --results FILE, given the same ROSTER (checked): only what has no final result is sent (no FILE yet: the job starts)' '--restart' 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over' '--concurrency' 'requests in flight at once (1 to 64)' '-h' 'display help for command' '--help' 'display help for command'
        case 'offers'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'offers get'
            printf '%s\t%s\n' '--isbn' 'ISBN-10 or ISBN-13 (required)' '--no-check' 'send the ISBN without verifying the check digit' '-h' 'display help for command' '--help' 'display help for command'
        case 'offers checkout'
            printf '%s\t%s\n' '--id' 'price id of an offer, a whole number (repeatable; at least one)' '--rejoiner-id' 'rejoiner id of a book (repeatable)' '--open' 'open the cart in a browser (on a terminal)' '-h' 'display help for command' '--help' 'display help for command'
        case 'ledger'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'ledger list'
            printf '%s\t%s\n' '--since' 'only writes at or after this time: YYYY-MM-DD, an ISO date-time, or an age such as 24h, 7d' '--until' 'only writes before this time (same forms as --since)' '--op' 'only this operation, e.g. "order create", "codes generate", "access allow", api' '--status' 'only writes whose outcome is this (`ledger list` and `ledger export` leave unsent writes out unless --status unsent)' '--user' 'only writes naming this user (username or e-mail address)' '--book' 'only writes naming this book' '--job' 'only the writes of this bulk job (its job id)' '--org' 'only writes naming this organization' '--label' 'only writes naming this white label' '-h' 'display help for command' '--help' 'display help for command'
        case 'ledger show'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'ledger verify'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'ledger export'
            printf '%s\t%s\n' '--format' 'csv or json' '--out' 'write to this new file (refused if it exists) instead of stdout' '--since' 'only writes at or after this time: YYYY-MM-DD, an ISO date-time, or an age such as 24h, 7d' '--until' 'only writes before this time (same forms as --since)' '--op' 'only this operation, e.g. "order create", "codes generate", "access allow", api' '--status' 'only writes whose outcome is this (`ledger list` and `ledger export` leave unsent writes out unless --status unsent)' '--user' 'only writes naming this user (username or e-mail address)' '--book' 'only writes naming this book' '--job' 'only the writes of this bulk job (its job id)' '--org' 'only writes naming this organization' '--label' 'only writes naming this white label' '-h' 'display help for command' '--help' 'display help for command'
        case 'ledger prune'
            printf '%s\t%s\n' '--before' 'remove writes before this time (YYYY-MM-DD, ISO date-time, or an age such as 90d)' '-h' 'display help for command' '--help' 'display help for command'
        case 'ledger reconcile'
            printf '%s\t%s\n' '--since' 'only writes at or after this time' '--all' 'check writes recorded as done too' '-h' 'display help for command' '--help' 'display help for command'
        case 'completion'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'completion bash'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'completion zsh'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'completion fish'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
        case 'completion refresh'
            printf '%s\t%s\n' '-h' 'display help for command' '--help' 'display help for command'
    end
end

# type code of option $flag defined by $cmdpath
function __bookdist_flag --argument-names cmdpath flag
    switch "$cmdpath/$flag"
        case '/--profile'
            echo 'rp'
        case '/--base-url'
            echo 'r-'
        case '/--ca-file'
            echo 'rf'
        case '/-o' '/--output'
            echo 'rc table json ndjson csv tsv'
        case '/--fields'
            echo 'r-'
        case '/--query'
            echo 'r-'
        case '/--color'
            echo 'rc auto always never'
        case '/--timeout'
            echo 'r-'
        case '/--retries'
            echo 'r-'
        case '/--resolve'
            echo 'r-'
        case 'describe/--endpoint'
            echo 'r-'
        case 'api/-f' 'api/--field'
            echo 'r-'
        case 'api/-F' 'api/--raw-field'
            echo 'r-'
        case 'api/--input'
            echo 'rf'
        case 'api/--auth'
            echo 'rc partner access none'
        case 'profile add/--name'
            echo 'r-'
        case 'profile add/--store-url'
            echo 'r-'
        case 'profile add/--username'
            echo 'r-'
        case 'profile add/--key-file'
            echo 'rf'
        case 'sandbox serve/--host'
            echo 'r-'
        case 'sandbox serve/--allow-host'
            echo 'r-'
        case 'sandbox serve/--public-url'
            echo 'r-'
        case 'sandbox serve/--port'
            echo 'r-'
        case 'sandbox serve/--db'
            echo 'rf'
        case 'sandbox serve/--process-delay'
            echo 'r-'
        case 'sandbox serve/--fault-rate'
            echo 'r-'
        case 'sandbox serve/--fault'
            echo 'rc 503 429 reset drop'
        case 'sandbox serve/--latency'
            echo 'r-'
        case 'sandbox serve/--cert'
            echo 'rf'
        case 'sandbox serve/--key'
            echo 'rf'
        case 'sandbox serve/--journal-size'
            echo 'r-'
        case 'sandbox credentials/--db'
            echo 'rf'
        case 'sandbox openapi/--server'
            echo 'r-'
        case 'sandbox reset/--db'
            echo 'rf'
        case 'sandbox catalogue load/--format'
            echo 'r-'
        case 'sandbox catalogue load/--publisher'
            echo 'r-'
        case 'sandbox catalogue load/--db'
            echo 'rf'
        case 'sandbox catalogue load/--url'
            echo 'r-'
        case 'sandbox clock advance/--db'
            echo 'rf'
        case 'sandbox clock advance/--url'
            echo 'r-'
        case 'sandbox clock show/--db'
            echo 'rf'
        case 'sandbox clock show/--url'
            echo 'r-'
        case 'sandbox usage/--username'
            echo 'ri user'
        case 'sandbox usage/--hash-id'
            echo 'ri book'
        case 'sandbox usage/--viewed'
            echo 'r-'
        case 'sandbox usage/--printed'
            echo 'r-'
        case 'sandbox usage/--db'
            echo 'rf'
        case 'sandbox usage/--url'
            echo 'r-'
        case 'sandbox redeem/--username'
            echo 'ri user'
        case 'sandbox redeem/--db'
            echo 'rf'
        case 'sandbox redeem/--url'
            echo 'r-'
        case 'sandbox outbox/--to'
            echo 'ri email'
        case 'sandbox outbox/--db'
            echo 'rf'
        case 'sandbox outbox/--url'
            echo 'r-'
        case 'sandbox requests list/--method'
            echo 'r-'
        case 'sandbox requests list/--path'
            echo 'r-'
        case 'sandbox requests list/--status'
            echo 'r-'
        case 'sandbox requests list/--account'
            echo 'ri user'
        case 'sandbox requests list/--since'
            echo 'r-'
        case 'sandbox requests list/--body'
            echo 'r-'
        case 'sandbox requests list/--limit'
            echo 'r-'
        case 'sandbox requests list/--db'
            echo 'rf'
        case 'sandbox requests list/--url'
            echo 'r-'
        case 'sandbox requests show/--db'
            echo 'rf'
        case 'sandbox requests show/--url'
            echo 'r-'
        case 'sandbox requests tail/--method'
            echo 'r-'
        case 'sandbox requests tail/--path'
            echo 'r-'
        case 'sandbox requests tail/--status'
            echo 'r-'
        case 'sandbox requests tail/--account'
            echo 'ri user'
        case 'sandbox requests tail/--since'
            echo 'r-'
        case 'sandbox requests tail/--body'
            echo 'r-'
        case 'sandbox requests tail/--db'
            echo 'rf'
        case 'sandbox requests tail/--url'
            echo 'r-'
        case 'sandbox requests verify/--method'
            echo 'r-'
        case 'sandbox requests verify/--path'
            echo 'r-'
        case 'sandbox requests verify/--status'
            echo 'r-'
        case 'sandbox requests verify/--account'
            echo 'ri user'
        case 'sandbox requests verify/--since'
            echo 'r-'
        case 'sandbox requests verify/--body'
            echo 'r-'
        case 'sandbox requests verify/--count'
            echo 'r-'
        case 'sandbox requests verify/--at-least'
            echo 'r-'
        case 'sandbox requests verify/--db'
            echo 'rf'
        case 'sandbox requests verify/--url'
            echo 'r-'
        case 'sandbox requests clear/--db'
            echo 'rf'
        case 'sandbox requests clear/--url'
            echo 'r-'
        case 'sandbox fixtures apply/--db'
            echo 'rf'
        case 'sandbox fixtures apply/--url'
            echo 'r-'
        case 'sandbox snapshot save/--db'
            echo 'rf'
        case 'sandbox snapshot save/--url'
            echo 'r-'
        case 'sandbox snapshot load/--db'
            echo 'rf'
        case 'sandbox snapshot load/--url'
            echo 'r-'
        case 'sandbox snapshot list/--db'
            echo 'rf'
        case 'sandbox snapshot list/--url'
            echo 'r-'
        case 'sandbox snapshot rm/--db'
            echo 'rf'
        case 'sandbox snapshot rm/--url'
            echo 'r-'
        case 'sandbox snapshot diff/--db'
            echo 'rf'
        case 'sandbox snapshot diff/--url'
            echo 'r-'
        case 'sandbox workspace create/--from'
            echo 'r-'
        case 'sandbox workspace create/--url'
            echo 'r-'
        case 'sandbox workspace create/--db'
            echo 'rf'
        case 'sandbox workspace list/--url'
            echo 'r-'
        case 'sandbox workspace list/--db'
            echo 'rf'
        case 'sandbox workspace rm/--url'
            echo 'r-'
        case 'sandbox workspace rm/--db'
            echo 'rf'
        case 'book get/--isbn'
            echo 'ri isbn'
        case 'book get/--sku'
            echo 'ri sku'
        case 'book get/--isbn-file'
            echo 'rf'
        case 'book get/--hash-id-file'
            echo 'rf'
        case 'book pricing/--isbn'
            echo 'ri isbn'
        case 'book search/--isbn'
            echo 'ri isbn'
        case 'book search/--title'
            echo 'r-'
        case 'book search/--author'
            echo 'r-'
        case 'book search/--hash-id'
            echo 'ri book'
        case 'book search/--limit'
            echo 'r-'
        case 'book search/--offset'
            echo 'r-'
        case 'book list/--limit'
            echo 'r-'
        case 'book list/--offset'
            echo 'r-'
        case 'book viewer/--username'
            echo 'ri user'
        case 'book viewer/--hash-id'
            echo 'ri book'
        case 'book process/--from-file'
            echo 'rf'
        case 'book process/--interval'
            echo 'r-'
        case 'book process/--results'
            echo 'rf'
        case 'book process/--concurrency'
            echo 'r-'
        case 'user invite/--email'
            echo 'ri email'
        case 'user invite/--first-name'
            echo 'r-'
        case 'user invite/--last-name'
            echo 'r-'
        case 'user invite/--label'
            echo 'ri label'
        case 'user create/--email'
            echo 'ri email'
        case 'user create/--first-name'
            echo 'r-'
        case 'user create/--last-name'
            echo 'r-'
        case 'user create/--label'
            echo 'ri label'
        case 'user create/--from-csv'
            echo 'rf'
        case 'user create/--results'
            echo 'rf'
        case 'user create/--concurrency'
            echo 'r-'
        case 'user get/--email'
            echo 'ri email'
        case 'order create/--username'
            echo 'ri user'
        case 'order create/--pricing-id'
            echo 'ri price'
        case 'order create/--order-type'
            echo 'r-'
        case 'order create/--org'
            echo 'ri org'
        case 'order create/--billing-file'
            echo 'rf'
        case 'order create/--billing-name'
            echo 'r-'
        case 'order create/--billing-first-name'
            echo 'r-'
        case 'order create/--billing-last-name'
            echo 'r-'
        case 'order create/--billing-company'
            echo 'r-'
        case 'order create/--billing-line1'
            echo 'r-'
        case 'order create/--billing-line2'
            echo 'r-'
        case 'order create/--billing-city'
            echo 'r-'
        case 'order create/--billing-state'
            echo 'r-'
        case 'order create/--billing-postal-code'
            echo 'r-'
        case 'order create/--billing-country'
            echo 'r-'
        case 'order create/--shipping-file'
            echo 'rf'
        case 'order create/--order-number'
            echo 'r-'
        case 'order create/--label'
            echo 'ri label'
        case 'order create/--from-csv'
            echo 'rf'
        case 'order create/--from-ndjson'
            echo 'rf'
        case 'order create/--results'
            echo 'rf'
        case 'order create/--concurrency'
            echo 'r-'
        case 'order refund/--order-id'
            echo 'ri order'
        case 'order refund/--item'
            echo 'ri purchase'
        case 'order free/--username'
            echo 'ri user'
        case 'order free/--hash-id'
            echo 'ri book'
        case 'order free/--expires'
            echo 'r-'
        case 'order free/--label'
            echo 'ri label'
        case 'order free/--from-csv'
            echo 'rf'
        case 'order free/--results'
            echo 'rf'
        case 'order free/--concurrency'
            echo 'r-'
        case 'codes generate/--hash-id'
            echo 'ri book'
        case 'codes generate/--org'
            echo 'ri org'
        case 'codes generate/--count'
            echo 'r-'
        case 'codes generate/--limit-days'
            echo 'r-'
        case 'codes generate/--expires'
            echo 'r-'
        case 'codes generate/--label'
            echo 'ri label'
        case 'codes generate/--batch-size'
            echo 'r-'
        case 'codes generate/--concurrency'
            echo 'r-'
        case 'codes generate/--out'
            echo 'rf'
        case 'import search/--title'
            echo 'r-'
        case 'import search/--author'
            echo 'r-'
        case 'import search/--isbn'
            echo 'ri isbn'
        case 'import search/--limit'
            echo 'r-'
        case 'import search/--offset'
            echo 'r-'
        case 'access allow/--hash-id'
            echo 'ri book'
        case 'access allow/--username'
            echo 'ri user'
        case 'access allow/--price'
            echo 'r-'
        case 'access allow/--price-cents'
            echo 'r-'
        case 'access allow/--expires'
            echo 'r-'
        case 'access allow/--email'
            echo 'ri email'
        case 'access allow/--from-csv'
            echo 'rf'
        case 'access allow/--results'
            echo 'rf'
        case 'access allow/--concurrency'
            echo 'r-'
        case 'access revoke/--hash-id'
            echo 'ri book'
        case 'access revoke/--username'
            echo 'ri user'
        case 'access revoke/--from-csv'
            echo 'rf'
        case 'access revoke/--results'
            echo 'rf'
        case 'access revoke/--concurrency'
            echo 'r-'
        case 'access sync/--hash-id'
            echo 'ri book'
        case 'access sync/--price'
            echo 'r-'
        case 'access sync/--assume-current'
            echo 'rf'
        case 'access sync/--results'
            echo 'rf'
        case 'access sync/--concurrency'
            echo 'r-'
        case 'offers get/--isbn'
            echo 'ri isbn'
        case 'offers checkout/--id'
            echo 'ri price'
        case 'offers checkout/--rejoiner-id'
            echo 'r-'
        case 'ledger list/--since'
            echo 'r-'
        case 'ledger list/--until'
            echo 'r-'
        case 'ledger list/--op'
            echo 'r-'
        case 'ledger list/--status'
            echo 'rc unknown failed done unsent'
        case 'ledger list/--user'
            echo 'ri user'
        case 'ledger list/--book'
            echo 'ri book'
        case 'ledger list/--job'
            echo 'r-'
        case 'ledger list/--org'
            echo 'ri org'
        case 'ledger list/--label'
            echo 'ri label'
        case 'ledger export/--format'
            echo 'rc csv json'
        case 'ledger export/--out'
            echo 'rf'
        case 'ledger export/--since'
            echo 'r-'
        case 'ledger export/--until'
            echo 'r-'
        case 'ledger export/--op'
            echo 'r-'
        case 'ledger export/--status'
            echo 'rc unknown failed done unsent'
        case 'ledger export/--user'
            echo 'ri user'
        case 'ledger export/--book'
            echo 'ri book'
        case 'ledger export/--job'
            echo 'r-'
        case 'ledger export/--org'
            echo 'ri org'
        case 'ledger export/--label'
            echo 'ri label'
        case 'ledger prune/--before'
            echo 'r-'
        case 'ledger reconcile/--since'
            echo 'r-'
    end
end

# type code of positional argument $index (from 0) of $cmdpath
function __bookdist_arg --argument-names cmdpath index
    switch "$cmdpath/$index"
        case 'api/1'
            echo 'rf'
        case 'profile show/0'
            echo 'rp'
        case 'profile use/0'
            echo 'rp'
        case 'profile remove/0'
            echo 'rs'
        case 'profile check/0'
            echo 'rp'
        case 'sandbox catalogue load/0'
            echo 'rf'
        case 'sandbox fixtures apply/0'
            echo 'rf'
        case 'book get/0'
            echo 'ri book'
        case 'book process/*'
            echo 'ri book'
        case 'user get/0'
            echo 'ri user'
        case 'user orders/0'
            echo 'ri user'
        case 'user purchase/0'
            echo 'ri user'
        case 'user purchase/1'
            echo 'ri purchase'
        case 'ledger show/0'
            echo 'ri ledger'
    end
end

# The command path one level up ('' above a top-level command).
function __bookdist_parent --argument-names cmdpath
    string replace -r '^[^ ]*$|  *[^ ]*$' '' -- "$cmdpath"
end

# Type code of option $flag at $cmdpath, defined there or by an ancestor.
function __bookdist_flag_type --argument-names cmdpath flag
    set -l p "$cmdpath"
    while true
        set -l code (__bookdist_flag "$p" "$flag")
        if test -n "$code"
            echo $code
            return
        end
        test -z "$p"; and return
        set p (__bookdist_parent "$p")
    end
end

# The options of $cmdpath and of its ancestors (global options), each once.
function __bookdist_all_flags --argument-names cmdpath
    set -l p "$cmdpath"
    set -l seen
    while true
        for line in (__bookdist_flags "$p")
            set -l name (string split -m 1 \t -- "$line")[1]
            contains -- "$name" $seen; and continue
            set -a seen "$name"
            echo $line
        end
        test -z "$p"; and break
        set p (__bookdist_parent "$p")
    end
end

# Values for type code $code completing $cur, each prefixed with $prefix (for --flag=value).
function __bookdist_values --argument-names code cur prefix
    switch "$code"
        case '?c *'
            for v in (string split ' ' -- (string sub -s 4 -- "$code"))
                echo "$prefix$v"
            end
        case '?f'
            for f in (__fish_complete_path "$cur")
                echo "$prefix$f"
            end
        case '?p'
            for v in sandbox (__bookdist_profiles)
                echo "$prefix$v"
            end
        case '?s'
            for v in (__bookdist_profiles)
                echo "$prefix$v"
            end
        case '?i *'
            # Ids match by their prefix or by a word of their description; each line is
            # `id TAB description`, which fish shows beside the id.
            __bookdist_ids (string sub -s 4 -- "$code") "$cur" desc "$prefix"
    end
end

# The cache file of the ids of kind $kind for the profile in use: --profile on the line
# ($profile), else BOOKDIST_PROFILE, else the config file's current profile, else the built-in
# sandbox. The CLI writes profiles/<name> (the scope it last used) and <scope>/<kind>.tsv under
# $XDG_CACHE_HOME/bookdist/ids (src/cache/ids.ts).
function __bookdist_ids_file --argument-names kind profile
    set -l base "$XDG_CACHE_HOME"
    test -z "$base"; and set base "$HOME/.cache"
    set -l dir "$base/bookdist/ids"
    set -l p "$profile"
    test -z "$p"; and set p "$BOOKDIST_PROFILE"
    if test -z "$p"
        set -l cdir "$BOOKDIST_CONFIG_DIR"
        if test -z "$cdir"
            set -l cbase "$XDG_CONFIG_HOME"
            test -z "$cbase"; and set cbase "$HOME/.config"
            set cdir "$cbase/bookdist"
        end
        set p (command sed -n 's/^[[:space:]]*"current":[[:space:]]*"\([A-Za-z0-9_-]*\)".*/\1/p' "$cdir/config.json" 2>/dev/null)
    end
    string match -qr -- '^[A-Za-z0-9_-]+$' "$p"; or set p sandbox
    test -f "$dir/profiles/$p"; or return
    set -l scope (command head -n 1 "$dir/profiles/$p" 2>/dev/null)
    string match -qr -- '^[0-9a-f]+$' "$scope"; and echo "$dir/$scope/$kind.tsv"
end

# The ids of kind $kind that match $cur (by prefix; mode `desc`: or a word of the description,
# and each line is `id TAB description`), newest first. No Node, no request.
function __bookdist_ids --argument-names kind cur mode prefix
    set -l file (__bookdist_ids_file "$kind" "$__bookdist_profile")
    test -n "$file" -a -f "$file"; or return
    set -l rev tac
    command -q tac; or set rev tail -r
    command $rev -- "$file" 2>/dev/null | BDC_TYPED="$cur" BDC_MODE="$mode" BDC_BEFORE="$prefix" command awk "$__bookdist_ids_awk" 2>/dev/null
end

# The names of the stored profiles, read from the config file that `bookdist profile add`
# writes (one `"name": {` line per profile): completing never runs bookdist.
function __bookdist_profiles
    set -l dir "$BOOKDIST_CONFIG_DIR"
    if test -z "$dir"
        set -l base "$XDG_CONFIG_HOME"
        test -z "$base"; and set base "$HOME/.config"
        set dir "$base/bookdist"
    end
    command sed -n 's/^[[:space:]]*"\([A-Za-z0-9_-]*\)":[[:space:]]*{.*/\1/p' "$dir/config.json" 2>/dev/null | command grep -vx profiles
end

function __bookdist_complete
    set -l tokens (commandline -xpc 2>/dev/null; or commandline -opc)
    set -e tokens[1]
    set -l cur (commandline -ct)
    set -l cmdpath ''
    set -l pending ''
    set -l help 0
    set -l nargs 0
    set -l dashdash 0
    set -g __bookdist_profile ''
    # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
    for word in $tokens
        if test -n "$pending"
            test "$pending" = --profile; and set -g __bookdist_profile "$word"
            set pending ''
            continue
        end
        if test $dashdash -eq 0
            if test "$word" = '--'
                set dashdash 1
                continue
            end
            if string match -q -- '-?*' "$word"
                string match -q -- '--profile=*' "$word"; and set -g __bookdist_profile (string replace -- '--profile=' '' "$word")
                string match -q -- '*=*' "$word"; and continue
                set -l code (__bookdist_flag_type "$cmdpath" "$word")
                string match -q -- 'r*' "$code"; and set pending "$word"
                continue
            end
        end
        if test $nargs -eq 0
            set -l name (__bookdist_cmd "$cmdpath" "$word")
            if test -n "$name"
                # "help" takes command names: keep completing them, without options.
                if test "$name" = help
                    set help 1
                else if test -z "$cmdpath"
                    set cmdpath "$name"
                else
                    set cmdpath "$cmdpath $name"
                end
                continue
            end
        end
        set nargs (math $nargs + 1)
    end

    if test -n "$pending"
        set -l code (__bookdist_flag_type "$cmdpath" "$pending")
        __bookdist_values "$code" "$cur" ''
        return
    end
    if test $dashdash -eq 0 -a $help -eq 0; and string match -q -- '-*' "$cur"
        if string match -q -- '-?*=*' "$cur"
            set -l flag (string replace -r '=.*' '' -- "$cur")
            set -l value (string replace -r '^[^=]*=' '' -- "$cur")
            set -l code (__bookdist_flag_type "$cmdpath" "$flag")
            __bookdist_values "$code" "$value" "$flag="
        else
            __bookdist_all_flags "$cmdpath"
        end
        return
    end
    set -l out
    if test $nargs -eq 0
        set -l rx '^'(string escape --style=regex -- "$cur")
        set out (__bookdist_cmds "$cmdpath")
        if test (count $out) -eq 0; or not string match -qr -- $rx $out
            set out (__bookdist_aliases "$cmdpath")
        end
    end
    test $help -eq 1; and begin
        printf '%s\n' $out
        return
    end
    if test (count $out) -eq 0
        set -l code (__bookdist_arg "$cmdpath" $nargs)
        test -z "$code"; and set code (__bookdist_arg "$cmdpath" '*')
        set out (__bookdist_values "$code" "$cur" '')
    end
    # Nothing else to offer after a command: its options.
    if test (count $out) -eq 0 -a $dashdash -eq 0 -a -z "$cur"
        set out (__bookdist_all_flags "$cmdpath")
    end
    printf '%s\n' $out
end

complete -c bookdist -e
complete -c bookdist -f -a '(__bookdist_complete)'
