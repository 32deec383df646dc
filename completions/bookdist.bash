# bash completion for bookdist. Generated from the command tree by `bookdist completion bash`; do not edit.
# Load in the current shell:  source <(bookdist completion bash)
# Install (bash-completion):  bookdist completion bash > ~/.local/share/bash-completion/completions/bookdist
# Type codes: arity (n none, r required value, o optional value), then the value's kind
# (- anything, f a file path, p a profile's name (stored ones and the built-in sandbox), s a stored
# profile's name, c one of the choices listed after a space, i an id of the completion cache, its
# kind after a space).

# The reader of the completion cache of ids (see _bookdist_ids)
# shellcheck disable=SC2016 # an awk program: its $1 and $2 are awk's
_bookdist_ids_awk='BEGIN { FS = "\t"; p = ENVIRON["BDC_TYPED"]; lp = tolower(p); mode = ENVIRON["BDC_MODE"]; x = ENVIRON["BDC_BEFORE"]; max = 100 }
$1 == "" || ($1 in seen) { next }
{
  seen[$1] = 1
  ok = (p == "" || index($1, p) == 1)
  if (!ok && mode == "desc" && index(ld = tolower($2), lp)) {
    m = split(ld, w, /[[:space:][:punct:]]+/)
    for (j = 1; j <= m && !ok; j++) ok = (index(w[j], lp) == 1)
  }
  if (!ok) next
  if (mode == "desc") print x $1 "\t" $2; else print x $1
  if (++shown >= max) exit
}'

# REPLY: the subcommand that word $2 names under command path $1 (or empty)
_bookdist_cmd() {
  case "$1/$2" in
    '/status') REPLY='status' ;;
    '/whoami') REPLY='whoami' ;;
    '/describe') REPLY='describe' ;;
    '/api') REPLY='api' ;;
    '/profile') REPLY='profile' ;;
    '/sandbox') REPLY='sandbox' ;;
    '/book') REPLY='book' ;;
    '/user') REPLY='user' ;;
    '/order') REPLY='order' ;;
    '/codes') REPLY='codes' ;;
    '/import') REPLY='import' ;;
    '/access') REPLY='access' ;;
    '/offers') REPLY='offers' ;;
    '/ledger') REPLY='ledger' ;;
    '/completion') REPLY='completion' ;;
    '/help') REPLY='help' ;;
    'profile/add') REPLY='add' ;;
    'profile/list'|'profile/ls') REPLY='list' ;;
    'profile/show') REPLY='show' ;;
    'profile/use') REPLY='use' ;;
    'profile/remove'|'profile/rm') REPLY='remove' ;;
    'profile/check') REPLY='check' ;;
    'profile/help') REPLY='help' ;;
    'sandbox/serve') REPLY='serve' ;;
    'sandbox/credentials') REPLY='credentials' ;;
    'sandbox/openapi') REPLY='openapi' ;;
    'sandbox/reset') REPLY='reset' ;;
    'sandbox/catalogue') REPLY='catalogue' ;;
    'sandbox/clock') REPLY='clock' ;;
    'sandbox/usage') REPLY='usage' ;;
    'sandbox/redeem') REPLY='redeem' ;;
    'sandbox/outbox') REPLY='outbox' ;;
    'sandbox/requests') REPLY='requests' ;;
    'sandbox/fixtures') REPLY='fixtures' ;;
    'sandbox/snapshot') REPLY='snapshot' ;;
    'sandbox/workspace') REPLY='workspace' ;;
    'sandbox/help') REPLY='help' ;;
    'sandbox catalogue/load') REPLY='load' ;;
    'sandbox catalogue/help') REPLY='help' ;;
    'sandbox clock/advance') REPLY='advance' ;;
    'sandbox clock/show') REPLY='show' ;;
    'sandbox clock/help') REPLY='help' ;;
    'sandbox requests/list') REPLY='list' ;;
    'sandbox requests/show') REPLY='show' ;;
    'sandbox requests/tail') REPLY='tail' ;;
    'sandbox requests/verify') REPLY='verify' ;;
    'sandbox requests/clear') REPLY='clear' ;;
    'sandbox requests/help') REPLY='help' ;;
    'sandbox fixtures/apply') REPLY='apply' ;;
    'sandbox fixtures/help') REPLY='help' ;;
    'sandbox snapshot/save') REPLY='save' ;;
    'sandbox snapshot/load') REPLY='load' ;;
    'sandbox snapshot/list') REPLY='list' ;;
    'sandbox snapshot/rm') REPLY='rm' ;;
    'sandbox snapshot/diff') REPLY='diff' ;;
    'sandbox snapshot/help') REPLY='help' ;;
    'sandbox workspace/create') REPLY='create' ;;
    'sandbox workspace/list') REPLY='list' ;;
    'sandbox workspace/rm') REPLY='rm' ;;
    'sandbox workspace/help') REPLY='help' ;;
    'book/get') REPLY='get' ;;
    'book/pricing') REPLY='pricing' ;;
    'book/search') REPLY='search' ;;
    'book/list') REPLY='list' ;;
    'book/viewer') REPLY='viewer' ;;
    'book/process') REPLY='process' ;;
    'book/help') REPLY='help' ;;
    'user/invite') REPLY='invite' ;;
    'user/create') REPLY='create' ;;
    'user/get') REPLY='get' ;;
    'user/orders') REPLY='orders' ;;
    'user/purchase') REPLY='purchase' ;;
    'user/help') REPLY='help' ;;
    'order/create') REPLY='create' ;;
    'order/refund') REPLY='refund' ;;
    'order/free') REPLY='free' ;;
    'order/help') REPLY='help' ;;
    'codes/generate') REPLY='generate' ;;
    'codes/summary') REPLY='summary' ;;
    'codes/help') REPLY='help' ;;
    'import/search') REPLY='search' ;;
    'import/help') REPLY='help' ;;
    'access/allow') REPLY='allow' ;;
    'access/revoke') REPLY='revoke' ;;
    'access/sync') REPLY='sync' ;;
    'access/help') REPLY='help' ;;
    'offers/get') REPLY='get' ;;
    'offers/checkout') REPLY='checkout' ;;
    'offers/help') REPLY='help' ;;
    'ledger/list') REPLY='list' ;;
    'ledger/show') REPLY='show' ;;
    'ledger/verify') REPLY='verify' ;;
    'ledger/export') REPLY='export' ;;
    'ledger/prune') REPLY='prune' ;;
    'ledger/reconcile') REPLY='reconcile' ;;
    'ledger/help') REPLY='help' ;;
    'completion/bash') REPLY='bash' ;;
    'completion/zsh') REPLY='zsh' ;;
    'completion/fish') REPLY='fish' ;;
    'completion/refresh') REPLY='refresh' ;;
    'completion/help') REPLY='help' ;;
    *) REPLY='' ;;
  esac
}

# the subcommands of command path $1
_bookdist_cmds() {
  case "$1" in
    '') REPLY='status whoami describe api profile sandbox book user order codes import access offers ledger completion help' ;;
    'profile') REPLY='add list show use remove check help' ;;
    'sandbox') REPLY='serve credentials openapi reset catalogue clock usage redeem outbox requests fixtures snapshot workspace help' ;;
    'sandbox catalogue') REPLY='load help' ;;
    'sandbox clock') REPLY='advance show help' ;;
    'sandbox requests') REPLY='list show tail verify clear help' ;;
    'sandbox fixtures') REPLY='apply help' ;;
    'sandbox snapshot') REPLY='save load list rm diff help' ;;
    'sandbox workspace') REPLY='create list rm help' ;;
    'book') REPLY='get pricing search list viewer process help' ;;
    'user') REPLY='invite create get orders purchase help' ;;
    'order') REPLY='create refund free help' ;;
    'codes') REPLY='generate summary help' ;;
    'import') REPLY='search help' ;;
    'access') REPLY='allow revoke sync help' ;;
    'offers') REPLY='get checkout help' ;;
    'ledger') REPLY='list show verify export prune reconcile help' ;;
    'completion') REPLY='bash zsh fish refresh help' ;;
    *) REPLY='' ;;
  esac
}

# aliases of the subcommands of command path $1
_bookdist_aliases() {
  case "$1" in
    'profile') REPLY='ls rm' ;;
    *) REPLY='' ;;
  esac
}

# the options of command path $1 itself (not those of its ancestors)
_bookdist_flags() {
  case "$1" in
    '') REPLY='-V --version --profile --base-url --ca-file -o --output --json --fields --query --color --no-color --timeout --retries --debug -q --quiet -y --yes --no-cache --no-ledger --dry-run --resolve -h --help' ;;
    'status') REPLY='-h --help' ;;
    'whoami') REPLY='-h --help' ;;
    'describe') REPLY='--endpoint -h --help' ;;
    'api') REPLY='-f --field -F --raw-field --input --auth --store -i --include -h --help' ;;
    'profile') REPLY='-h --help' ;;
    'profile add') REPLY='--name --store-url --username --key-file --shared-key-stdin --token-stdin --idempotency-keys --use --force --no-verify -h --help' ;;
    'profile list') REPLY='-h --help' ;;
    'profile show') REPLY='-h --help' ;;
    'profile use') REPLY='-h --help' ;;
    'profile remove') REPLY='-h --help' ;;
    'profile check') REPLY='-h --help' ;;
    'sandbox') REPLY='-h --help' ;;
    'sandbox serve') REPLY='--host --expose --allow-host --public-url --port --db --process-delay --fault-rate --fault --latency --tls --cert --key --journal-size --no-journal --redact-codes -h --help' ;;
    'sandbox credentials') REPLY='--db -h --help' ;;
    'sandbox openapi') REPLY='--server -h --help' ;;
    'sandbox reset') REPLY='--keep-loaded --db -h --help' ;;
    'sandbox catalogue') REPLY='-h --help' ;;
    'sandbox catalogue load') REPLY='--format --publisher --strict --db --url -h --help' ;;
    'sandbox clock') REPLY='-h --help' ;;
    'sandbox clock advance') REPLY='--db --url -h --help' ;;
    'sandbox clock show') REPLY='--db --url -h --help' ;;
    'sandbox usage') REPLY='--username --hash-id --viewed --printed --db --url -h --help' ;;
    'sandbox redeem') REPLY='--username --db --url -h --help' ;;
    'sandbox outbox') REPLY='--to --db --url -h --help' ;;
    'sandbox requests') REPLY='-h --help' ;;
    'sandbox requests list') REPLY='--method --path --status --account --since --body --limit --db --url -h --help' ;;
    'sandbox requests show') REPLY='--db --url -h --help' ;;
    'sandbox requests tail') REPLY='--method --path --status --account --since --body --db --url -h --help' ;;
    'sandbox requests verify') REPLY='--method --path --status --account --since --body --count --at-least --none --db --url -h --help' ;;
    'sandbox requests clear') REPLY='--db --url -h --help' ;;
    'sandbox fixtures') REPLY='-h --help' ;;
    'sandbox fixtures apply') REPLY='--db --url -h --help' ;;
    'sandbox snapshot') REPLY='-h --help' ;;
    'sandbox snapshot save') REPLY='--db --url -h --help' ;;
    'sandbox snapshot load') REPLY='--db --url -h --help' ;;
    'sandbox snapshot list') REPLY='--db --url -h --help' ;;
    'sandbox snapshot rm') REPLY='--db --url -h --help' ;;
    'sandbox snapshot diff') REPLY='--db --url -h --help' ;;
    'sandbox workspace') REPLY='-h --help' ;;
    'sandbox workspace create') REPLY='--from --url --db -h --help' ;;
    'sandbox workspace list') REPLY='--url --db -h --help' ;;
    'sandbox workspace rm') REPLY='--url --db -h --help' ;;
    'book') REPLY='-h --help' ;;
    'book get') REPLY='--isbn --sku --isbn-file --hash-id-file --no-check -h --help' ;;
    'book pricing') REPLY='--isbn --no-check -h --help' ;;
    'book search') REPLY='--isbn --title --author --hash-id --limit --offset --all --no-check -h --help' ;;
    'book list') REPLY='--limit --offset --all -h --help' ;;
    'book viewer') REPLY='--username --hash-id --open -h --help' ;;
    'book process') REPLY='--from-file --force --urgent --wait --interval --results --resume --restart --concurrency -h --help' ;;
    'user') REPLY='-h --help' ;;
    'user invite') REPLY='--email --first-name --last-name --label -h --help' ;;
    'user create') REPLY='--email --first-name --last-name --password-stdin --label --from-csv --results --resume --restart --concurrency -h --help' ;;
    'user get') REPLY='--email -h --help' ;;
    'user orders') REPLY='-h --help' ;;
    'user purchase') REPLY='--refund-data -h --help' ;;
    'order') REPLY='-h --help' ;;
    'order create') REPLY='--username --pricing-id --order-type --org --billing-file --billing-name --billing-first-name --billing-last-name --billing-company --billing-line1 --billing-line2 --billing-city --billing-state --billing-postal-code --billing-country --shipping-file --order-number --label --no-email --from-csv --from-ndjson --results --resume --restart --concurrency -h --help' ;;
    'order refund') REPLY='--order-id --item --send-email --no-email -h --help' ;;
    'order free') REPLY='--username --hash-id --expires --label --from-csv --results --resume --restart --concurrency -h --help' ;;
    'codes') REPLY='-h --help' ;;
    'codes generate') REPLY='--hash-id --org --count --limit-days --expires --samples --label --batch-size --concurrency --out --resume --restart -h --help' ;;
    'codes summary') REPLY='-h --help' ;;
    'import') REPLY='-h --help' ;;
    'import search') REPLY='--title --author --isbn --limit --offset --all --no-check -h --help' ;;
    'access') REPLY='-h --help' ;;
    'access allow') REPLY='--hash-id --username --price --price-cents --expires --email --send-email --from-csv --results --resume --restart --concurrency -h --help' ;;
    'access revoke') REPLY='--hash-id --username --from-csv --results --resume --restart --concurrency -h --help' ;;
    'access sync') REPLY='--hash-id --price --assume-current --results --resume --restart --concurrency -h --help' ;;
    'offers') REPLY='-h --help' ;;
    'offers get') REPLY='--isbn --no-check -h --help' ;;
    'offers checkout') REPLY='--id --rejoiner-id --open -h --help' ;;
    'ledger') REPLY='-h --help' ;;
    'ledger list') REPLY='--since --until --op --status --user --book --job --org --label -h --help' ;;
    'ledger show') REPLY='-h --help' ;;
    'ledger verify') REPLY='-h --help' ;;
    'ledger export') REPLY='--format --out --since --until --op --status --user --book --job --org --label -h --help' ;;
    'ledger prune') REPLY='--before -h --help' ;;
    'ledger reconcile') REPLY='--since --all -h --help' ;;
    'completion') REPLY='-h --help' ;;
    'completion bash') REPLY='-h --help' ;;
    'completion zsh') REPLY='-h --help' ;;
    'completion fish') REPLY='-h --help' ;;
    'completion refresh') REPLY='-h --help' ;;
    *) REPLY='' ;;
  esac
}

# REPLY: type code of option $2 defined by command path $1 (see above)
_bookdist_flag() {
  case "$1/$2" in
    '/--profile') REPLY='rp' ;;
    '/--base-url') REPLY='r-' ;;
    '/--ca-file') REPLY='rf' ;;
    '/-o'|'/--output') REPLY='rc table json ndjson csv tsv' ;;
    '/--fields') REPLY='r-' ;;
    '/--query') REPLY='r-' ;;
    '/--color') REPLY='rc auto always never' ;;
    '/--timeout') REPLY='r-' ;;
    '/--retries') REPLY='r-' ;;
    '/--resolve') REPLY='r-' ;;
    'describe/--endpoint') REPLY='r-' ;;
    'api/-f'|'api/--field') REPLY='r-' ;;
    'api/-F'|'api/--raw-field') REPLY='r-' ;;
    'api/--input') REPLY='rf' ;;
    'api/--auth') REPLY='rc partner access none' ;;
    'profile add/--name') REPLY='r-' ;;
    'profile add/--store-url') REPLY='r-' ;;
    'profile add/--username') REPLY='r-' ;;
    'profile add/--key-file') REPLY='rf' ;;
    'sandbox serve/--host') REPLY='r-' ;;
    'sandbox serve/--allow-host') REPLY='r-' ;;
    'sandbox serve/--public-url') REPLY='r-' ;;
    'sandbox serve/--port') REPLY='r-' ;;
    'sandbox serve/--db') REPLY='rf' ;;
    'sandbox serve/--process-delay') REPLY='r-' ;;
    'sandbox serve/--fault-rate') REPLY='r-' ;;
    'sandbox serve/--fault') REPLY='rc 503 429 reset drop' ;;
    'sandbox serve/--latency') REPLY='r-' ;;
    'sandbox serve/--cert') REPLY='rf' ;;
    'sandbox serve/--key') REPLY='rf' ;;
    'sandbox serve/--journal-size') REPLY='r-' ;;
    'sandbox credentials/--db') REPLY='rf' ;;
    'sandbox openapi/--server') REPLY='r-' ;;
    'sandbox reset/--db') REPLY='rf' ;;
    'sandbox catalogue load/--format') REPLY='r-' ;;
    'sandbox catalogue load/--publisher') REPLY='r-' ;;
    'sandbox catalogue load/--db') REPLY='rf' ;;
    'sandbox catalogue load/--url') REPLY='r-' ;;
    'sandbox clock advance/--db') REPLY='rf' ;;
    'sandbox clock advance/--url') REPLY='r-' ;;
    'sandbox clock show/--db') REPLY='rf' ;;
    'sandbox clock show/--url') REPLY='r-' ;;
    'sandbox usage/--username') REPLY='ri user' ;;
    'sandbox usage/--hash-id') REPLY='ri book' ;;
    'sandbox usage/--viewed') REPLY='r-' ;;
    'sandbox usage/--printed') REPLY='r-' ;;
    'sandbox usage/--db') REPLY='rf' ;;
    'sandbox usage/--url') REPLY='r-' ;;
    'sandbox redeem/--username') REPLY='ri user' ;;
    'sandbox redeem/--db') REPLY='rf' ;;
    'sandbox redeem/--url') REPLY='r-' ;;
    'sandbox outbox/--to') REPLY='ri email' ;;
    'sandbox outbox/--db') REPLY='rf' ;;
    'sandbox outbox/--url') REPLY='r-' ;;
    'sandbox requests list/--method') REPLY='r-' ;;
    'sandbox requests list/--path') REPLY='r-' ;;
    'sandbox requests list/--status') REPLY='r-' ;;
    'sandbox requests list/--account') REPLY='ri user' ;;
    'sandbox requests list/--since') REPLY='r-' ;;
    'sandbox requests list/--body') REPLY='r-' ;;
    'sandbox requests list/--limit') REPLY='r-' ;;
    'sandbox requests list/--db') REPLY='rf' ;;
    'sandbox requests list/--url') REPLY='r-' ;;
    'sandbox requests show/--db') REPLY='rf' ;;
    'sandbox requests show/--url') REPLY='r-' ;;
    'sandbox requests tail/--method') REPLY='r-' ;;
    'sandbox requests tail/--path') REPLY='r-' ;;
    'sandbox requests tail/--status') REPLY='r-' ;;
    'sandbox requests tail/--account') REPLY='ri user' ;;
    'sandbox requests tail/--since') REPLY='r-' ;;
    'sandbox requests tail/--body') REPLY='r-' ;;
    'sandbox requests tail/--db') REPLY='rf' ;;
    'sandbox requests tail/--url') REPLY='r-' ;;
    'sandbox requests verify/--method') REPLY='r-' ;;
    'sandbox requests verify/--path') REPLY='r-' ;;
    'sandbox requests verify/--status') REPLY='r-' ;;
    'sandbox requests verify/--account') REPLY='ri user' ;;
    'sandbox requests verify/--since') REPLY='r-' ;;
    'sandbox requests verify/--body') REPLY='r-' ;;
    'sandbox requests verify/--count') REPLY='r-' ;;
    'sandbox requests verify/--at-least') REPLY='r-' ;;
    'sandbox requests verify/--db') REPLY='rf' ;;
    'sandbox requests verify/--url') REPLY='r-' ;;
    'sandbox requests clear/--db') REPLY='rf' ;;
    'sandbox requests clear/--url') REPLY='r-' ;;
    'sandbox fixtures apply/--db') REPLY='rf' ;;
    'sandbox fixtures apply/--url') REPLY='r-' ;;
    'sandbox snapshot save/--db') REPLY='rf' ;;
    'sandbox snapshot save/--url') REPLY='r-' ;;
    'sandbox snapshot load/--db') REPLY='rf' ;;
    'sandbox snapshot load/--url') REPLY='r-' ;;
    'sandbox snapshot list/--db') REPLY='rf' ;;
    'sandbox snapshot list/--url') REPLY='r-' ;;
    'sandbox snapshot rm/--db') REPLY='rf' ;;
    'sandbox snapshot rm/--url') REPLY='r-' ;;
    'sandbox snapshot diff/--db') REPLY='rf' ;;
    'sandbox snapshot diff/--url') REPLY='r-' ;;
    'sandbox workspace create/--from') REPLY='r-' ;;
    'sandbox workspace create/--url') REPLY='r-' ;;
    'sandbox workspace create/--db') REPLY='rf' ;;
    'sandbox workspace list/--url') REPLY='r-' ;;
    'sandbox workspace list/--db') REPLY='rf' ;;
    'sandbox workspace rm/--url') REPLY='r-' ;;
    'sandbox workspace rm/--db') REPLY='rf' ;;
    'book get/--isbn') REPLY='ri isbn' ;;
    'book get/--sku') REPLY='ri sku' ;;
    'book get/--isbn-file') REPLY='rf' ;;
    'book get/--hash-id-file') REPLY='rf' ;;
    'book pricing/--isbn') REPLY='ri isbn' ;;
    'book search/--isbn') REPLY='ri isbn' ;;
    'book search/--title') REPLY='r-' ;;
    'book search/--author') REPLY='r-' ;;
    'book search/--hash-id') REPLY='ri book' ;;
    'book search/--limit') REPLY='r-' ;;
    'book search/--offset') REPLY='r-' ;;
    'book list/--limit') REPLY='r-' ;;
    'book list/--offset') REPLY='r-' ;;
    'book viewer/--username') REPLY='ri user' ;;
    'book viewer/--hash-id') REPLY='ri book' ;;
    'book process/--from-file') REPLY='rf' ;;
    'book process/--interval') REPLY='r-' ;;
    'book process/--results') REPLY='rf' ;;
    'book process/--concurrency') REPLY='r-' ;;
    'user invite/--email') REPLY='ri email' ;;
    'user invite/--first-name') REPLY='r-' ;;
    'user invite/--last-name') REPLY='r-' ;;
    'user invite/--label') REPLY='ri label' ;;
    'user create/--email') REPLY='ri email' ;;
    'user create/--first-name') REPLY='r-' ;;
    'user create/--last-name') REPLY='r-' ;;
    'user create/--label') REPLY='ri label' ;;
    'user create/--from-csv') REPLY='rf' ;;
    'user create/--results') REPLY='rf' ;;
    'user create/--concurrency') REPLY='r-' ;;
    'user get/--email') REPLY='ri email' ;;
    'order create/--username') REPLY='ri user' ;;
    'order create/--pricing-id') REPLY='ri price' ;;
    'order create/--order-type') REPLY='r-' ;;
    'order create/--org') REPLY='ri org' ;;
    'order create/--billing-file') REPLY='rf' ;;
    'order create/--billing-name') REPLY='r-' ;;
    'order create/--billing-first-name') REPLY='r-' ;;
    'order create/--billing-last-name') REPLY='r-' ;;
    'order create/--billing-company') REPLY='r-' ;;
    'order create/--billing-line1') REPLY='r-' ;;
    'order create/--billing-line2') REPLY='r-' ;;
    'order create/--billing-city') REPLY='r-' ;;
    'order create/--billing-state') REPLY='r-' ;;
    'order create/--billing-postal-code') REPLY='r-' ;;
    'order create/--billing-country') REPLY='r-' ;;
    'order create/--shipping-file') REPLY='rf' ;;
    'order create/--order-number') REPLY='r-' ;;
    'order create/--label') REPLY='ri label' ;;
    'order create/--from-csv') REPLY='rf' ;;
    'order create/--from-ndjson') REPLY='rf' ;;
    'order create/--results') REPLY='rf' ;;
    'order create/--concurrency') REPLY='r-' ;;
    'order refund/--order-id') REPLY='ri order' ;;
    'order refund/--item') REPLY='ri purchase' ;;
    'order free/--username') REPLY='ri user' ;;
    'order free/--hash-id') REPLY='ri book' ;;
    'order free/--expires') REPLY='r-' ;;
    'order free/--label') REPLY='ri label' ;;
    'order free/--from-csv') REPLY='rf' ;;
    'order free/--results') REPLY='rf' ;;
    'order free/--concurrency') REPLY='r-' ;;
    'codes generate/--hash-id') REPLY='ri book' ;;
    'codes generate/--org') REPLY='ri org' ;;
    'codes generate/--count') REPLY='r-' ;;
    'codes generate/--limit-days') REPLY='r-' ;;
    'codes generate/--expires') REPLY='r-' ;;
    'codes generate/--label') REPLY='ri label' ;;
    'codes generate/--batch-size') REPLY='r-' ;;
    'codes generate/--concurrency') REPLY='r-' ;;
    'codes generate/--out') REPLY='rf' ;;
    'import search/--title') REPLY='r-' ;;
    'import search/--author') REPLY='r-' ;;
    'import search/--isbn') REPLY='ri isbn' ;;
    'import search/--limit') REPLY='r-' ;;
    'import search/--offset') REPLY='r-' ;;
    'access allow/--hash-id') REPLY='ri book' ;;
    'access allow/--username') REPLY='ri user' ;;
    'access allow/--price') REPLY='r-' ;;
    'access allow/--price-cents') REPLY='r-' ;;
    'access allow/--expires') REPLY='r-' ;;
    'access allow/--email') REPLY='ri email' ;;
    'access allow/--from-csv') REPLY='rf' ;;
    'access allow/--results') REPLY='rf' ;;
    'access allow/--concurrency') REPLY='r-' ;;
    'access revoke/--hash-id') REPLY='ri book' ;;
    'access revoke/--username') REPLY='ri user' ;;
    'access revoke/--from-csv') REPLY='rf' ;;
    'access revoke/--results') REPLY='rf' ;;
    'access revoke/--concurrency') REPLY='r-' ;;
    'access sync/--hash-id') REPLY='ri book' ;;
    'access sync/--price') REPLY='r-' ;;
    'access sync/--assume-current') REPLY='rf' ;;
    'access sync/--results') REPLY='rf' ;;
    'access sync/--concurrency') REPLY='r-' ;;
    'offers get/--isbn') REPLY='ri isbn' ;;
    'offers checkout/--id') REPLY='ri price' ;;
    'offers checkout/--rejoiner-id') REPLY='r-' ;;
    'ledger list/--since') REPLY='r-' ;;
    'ledger list/--until') REPLY='r-' ;;
    'ledger list/--op') REPLY='r-' ;;
    'ledger list/--status') REPLY='rc unknown failed done unsent' ;;
    'ledger list/--user') REPLY='ri user' ;;
    'ledger list/--book') REPLY='ri book' ;;
    'ledger list/--job') REPLY='r-' ;;
    'ledger list/--org') REPLY='ri org' ;;
    'ledger list/--label') REPLY='ri label' ;;
    'ledger export/--format') REPLY='rc csv json' ;;
    'ledger export/--out') REPLY='rf' ;;
    'ledger export/--since') REPLY='r-' ;;
    'ledger export/--until') REPLY='r-' ;;
    'ledger export/--op') REPLY='r-' ;;
    'ledger export/--status') REPLY='rc unknown failed done unsent' ;;
    'ledger export/--user') REPLY='ri user' ;;
    'ledger export/--book') REPLY='ri book' ;;
    'ledger export/--job') REPLY='r-' ;;
    'ledger export/--org') REPLY='ri org' ;;
    'ledger export/--label') REPLY='ri label' ;;
    'ledger prune/--before') REPLY='r-' ;;
    'ledger reconcile/--since') REPLY='r-' ;;
    *) REPLY='' ;;
  esac
}

# REPLY: type code of positional argument $2 (from 0) of command path $1
_bookdist_arg() {
  case "$1/$2" in
    'api/1') REPLY='rf' ;;
    'profile show/0') REPLY='rp' ;;
    'profile use/0') REPLY='rp' ;;
    'profile remove/0') REPLY='rs' ;;
    'profile check/0') REPLY='rp' ;;
    'sandbox catalogue load/0') REPLY='rf' ;;
    'sandbox fixtures apply/0') REPLY='rf' ;;
    'book get/0') REPLY='ri book' ;;
    'book process/*') REPLY='ri book' ;;
    'user get/0') REPLY='ri user' ;;
    'user orders/0') REPLY='ri user' ;;
    'user purchase/0') REPLY='ri user' ;;
    'user purchase/1') REPLY='ri purchase' ;;
    'ledger show/0') REPLY='ri ledger' ;;
    *) REPLY='' ;;
  esac
}

# REPLY: type code of option $2 at command path $1, defined there or by an ancestor.
_bookdist_flag_type() {
  local p=$1
  while :; do
    _bookdist_flag "$p" "$2"
    if [[ -n $REPLY || -z $p ]]; then return; fi
    if [[ $p == *' '* ]]; then p=${p% *}; else p=''; fi
  done
}

# REPLY: the options of command path $1 and of its ancestors (global options), each once.
_bookdist_all_flags() {
  local p=$1 seen=' ' out='' f
  while :; do
    _bookdist_flags "$p"
    for f in $REPLY; do
      [[ $seen == *" $f "* ]] && continue
      seen+="$f "
      out+="$f "
    done
    [[ -z $p ]] && break
    if [[ $p == *' '* ]]; then p=${p% *}; else p=''; fi
  done
  REPLY=$out
}

# COMPREPLY+=: each line that the command "$@" prints (mapfile is bash 4; this runs in bash 3.2 too).
_bookdist_reply() {
  local line
  while IFS= read -r line; do COMPREPLY+=("$line"); done < <("$@")
}

# COMPREPLY: values for type code $1 matching $2, each prefixed with $3 (for --flag=value).
_bookdist_values() {
  case $1 in
    ?c\ *) _bookdist_reply compgen -P "$3" -W "${1:3}" -- "$2" ;;
    ?f)
      _bookdist_reply compgen -P "$3" -f -- "$2"
      compopt -o filenames 2>/dev/null
      ;;
    ?p) _bookdist_profiles; _bookdist_reply compgen -P "$3" -W "sandbox $REPLY" -- "$2" ;;
    ?s) _bookdist_profiles; _bookdist_reply compgen -P "$3" -W "$REPLY" -- "$2" ;;
    ?i\ *)
      # awk has matched them already; ids are words without glob characters (src/cache/ids.ts).
      _bookdist_ids "${1:3}" "$2" id "$3"
      local IFS=$'\n'
      # shellcheck disable=SC2206 # one id a line, each a word without glob characters
      [[ -n $REPLY ]] && COMPREPLY+=($REPLY)
      ;;
  esac
}

# REPLY: the cache file of the ids of kind $1 for the profile in use: --profile on the line
# ($profile of the caller), else BOOKDIST_PROFILE, else the config file's current profile, else
# the built-in sandbox. The CLI writes profiles/<name> (the scope it last used) and
# <scope>/<kind>.tsv under $XDG_CACHE_HOME/bookdist/ids (src/cache/ids.ts).
_bookdist_ids_file() {
  local dir=${XDG_CACHE_HOME:-$HOME/.cache}/bookdist/ids p=${profile:-${BOOKDIST_PROFILE:-}} scope=''
  if [[ -z $p ]]; then
    local cfg=${BOOKDIST_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/bookdist}/config.json
    p=$(command sed -n 's/^[[:space:]]*"current":[[:space:]]*"\([A-Za-z0-9_-]*\)".*/\1/p' "$cfg" 2>/dev/null)
  fi
  [[ $p =~ ^[A-Za-z0-9_-]+$ ]] || p=sandbox
  [[ -f $dir/profiles/$p ]] && IFS= read -r scope <"$dir/profiles/$p"
  REPLY=''
  [[ $scope =~ ^[0-9a-f]+$ ]] && REPLY=$dir/$scope/$1.tsv
}

# REPLY: the ids of kind $1 that match $2 (by prefix; mode $3 `desc`: or a word of the
# description, and each line is `id TAB description`), newest first, one a line, each after $4.
# No Node, no request.
_bookdist_ids() {
  _bookdist_ids_file "$1"
  local file=$REPLY
  REPLY=''
  [[ -n $file && -f $file ]] || return 0
  local rev=tac
  command -v tac >/dev/null || rev='tail -r'
  REPLY=$(command $rev -- "$file" 2>/dev/null | BDC_TYPED=$2 BDC_MODE=$3 BDC_BEFORE=${4:-} command awk "$_bookdist_ids_awk" 2>/dev/null)
}

# REPLY: the names of the stored profiles, read from the config file that `bookdist profile add`
# writes (one `"name": {` line per profile), so completing never runs bookdist.
_bookdist_profiles() {
  local dir=${BOOKDIST_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/bookdist}
  REPLY="$(command sed -n 's/^[[:space:]]*"\([A-Za-z0-9_-]*\)":[[:space:]]*{.*/\1/p' "$dir/config.json" 2>/dev/null | command grep -vx profiles | command tr '\n' ' ')"
}

_bookdist() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmdpath='' pending='' profile='' word REPLY
  local -i i help=0 nargs=0 dashdash=0
  COMPREPLY=()
  # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    # "--flag=value" comes as three words when '=' is in COMP_WORDBREAKS.
    if [[ $word == '=' && ${COMP_WORDS[i-1]} == -?* ]]; then pending=${COMP_WORDS[i-1]}; continue; fi
    if [[ -n $pending ]]; then
      [[ $pending == --profile ]] && profile=$word
      pending=''
      continue
    fi
    if ((!dashdash)); then
      if [[ $word == -- ]]; then dashdash=1; continue; fi
      if [[ $word == -?* ]]; then
        [[ $word == --profile=* ]] && profile=${word#*=}
        [[ $word == *=* ]] && continue
        _bookdist_flag_type "$cmdpath" "$word"
        [[ $REPLY == r* ]] && pending=$word
        continue
      fi
    fi
    if ((nargs == 0)); then
      _bookdist_cmd "$cmdpath" "$word"
      if [[ -n $REPLY ]]; then
        # "help" takes command names: keep completing them, without options.
        if [[ $REPLY == help ]]; then help=1; else cmdpath=${cmdpath:+$cmdpath }$REPLY; fi
        continue
      fi
    fi
    nargs+=1
  done

  if [[ -n $pending ]]; then
    [[ $cur == '=' ]] && cur=''
    _bookdist_flag_type "$cmdpath" "$pending"
    _bookdist_values "$REPLY" "$cur" ''
    return 0
  fi
  if ((!dashdash && !help)) && [[ $cur == -* ]]; then
    if [[ $cur == -?*=* ]]; then
      _bookdist_flag_type "$cmdpath" "${cur%%=*}"
      _bookdist_values "$REPLY" "${cur#*=}" "${cur%%=*}="
    else
      _bookdist_all_flags "$cmdpath"
      _bookdist_reply compgen -W "$REPLY" -- "$cur"
    fi
    return 0
  fi
  if ((nargs == 0)); then
    _bookdist_cmds "$cmdpath"
    _bookdist_reply compgen -W "$REPLY" -- "$cur"
    if ((!${#COMPREPLY[@]})); then
      _bookdist_aliases "$cmdpath"
      _bookdist_reply compgen -W "$REPLY" -- "$cur"
    fi
  fi
  ((help)) && return 0
  if ((!${#COMPREPLY[@]})); then
    _bookdist_arg "$cmdpath" "$nargs"
    [[ -z $REPLY ]] && _bookdist_arg "$cmdpath" '*'
    _bookdist_values "$REPLY" "$cur" ''
  fi
  # Nothing else to offer after a command: its options.
  if ((!${#COMPREPLY[@]} && !dashdash)) && [[ -z $cur ]]; then
    _bookdist_all_flags "$cmdpath"
    _bookdist_reply compgen -W "$REPLY" -- "$cur"
  fi
  return 0
}

complete -F _bookdist bookdist
