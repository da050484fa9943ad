"""The small closed word lists the extraction rules check values against."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _pairs(text: str) -> dict[str, str]:
    """ "a:b c:d" as {"a": "b", "c": "d"}."""
    return dict(pair.split(":", 1) for pair in text.split())


COUNTRIES = frozenset(
    name.casefold()
    for name in """
Afghanistan|Albania|Algeria|Andorra|Angola|Argentina|Armenia|Australia|Austria|Azerbaijan|
Bahamas|Bahrain|Bangladesh|Barbados|Belarus|Belgium|Belize|Benin|Bhutan|Bolivia|
Bosnia and Herzegovina|Bosnia|Botswana|Brazil|Brunei|Bulgaria|Burkina Faso|Burundi|Cambodia|
Cameroon|Canada|Cape Verde|Chad|Chile|China|Colombia|Congo|Costa Rica|Croatia|Cuba|Cyprus|
Czechia|Czech Republic|Denmark|Djibouti|Dominican Republic|Ecuador|Egypt|El Salvador|England|
Estonia|Eswatini|Ethiopia|Fiji|Finland|France|Gabon|Gambia|Georgia|Germany|Ghana|Greece|
Guatemala|Guinea|Guyana|Haiti|Honduras|Hong Kong|Hungary|Iceland|India|Indonesia|Iran|Iraq|
Ireland|Israel|Italy|Ivory Coast|Jamaica|Japan|Jordan|Kazakhstan|Kenya|Kosovo|Kuwait|
Kyrgyzstan|Laos|Latvia|Lebanon|Lesotho|Liberia|Libya|Liechtenstein|Lithuania|Luxembourg|
Madagascar|Malawi|Malaysia|Maldives|Mali|Malta|Mauritania|Mauritius|Mexico|Moldova|Monaco|
Mongolia|Montenegro|Morocco|Mozambique|Myanmar|Namibia|Nepal|Netherlands|Holland|New Zealand|
Nicaragua|Niger|Nigeria|North Korea|North Macedonia|Norway|Oman|Pakistan|Palestine|Panama|
Papua New Guinea|Paraguay|Peru|Philippines|Poland|Portugal|Qatar|Romania|Russia|Rwanda|
Saudi Arabia|Scotland|Senegal|Serbia|Seychelles|Sierra Leone|Singapore|Slovakia|Slovenia|
Somalia|South Africa|South Korea|Korea|Spain|Sri Lanka|Sudan|Suriname|Sweden|Switzerland|
Syria|Taiwan|Tajikistan|Tanzania|Thailand|Togo|Trinidad and Tobago|Tunisia|Turkey|Turkiye|
Turkmenistan|Uganda|Ukraine|United Arab Emirates|UAE|United Kingdom|UK|United States|
United States of America|USA|US|America|Uruguay|Uzbekistan|Venezuela|Vietnam|Wales|Yemen|
Zambia|Zimbabwe""".replace("\n", "").split("|")
)

LANGUAGES = _words(
    """arabic bengali bulgarian cantonese catalan croatian czech danish dutch english estonian
farsi persian finnish french german greek hebrew hindi hungarian icelandic indonesian irish
italian japanese javanese korean latvian lithuanian malay mandarin chinese norwegian polish
portuguese punjabi romanian russian serbian slovak slovenian spanish swahili swedish tagalog
filipino tamil telugu thai turkish ukrainian urdu vietnamese welsh yoruba zulu afrikaans
basque galician albanian armenian georgian kazakh uzbek amharic somali hausa igbo latin
esperanto sign asl bsl quechua aymara guarani maori hawaiian tibetan nepali sinhala khmer lao
burmese mongolian pashto dari kurdish azerbaijani azeri tatar belarusian macedonian bosnian
maltese luxembourgish frisian faroese xhosa sesotho setswana shona kinyarwanda luganda
lingala wolof fula twi akan ewe tigrinya oromo malagasy samoan tongan marathi gujarati
kannada malayalam odia assamese sindhi konkani hokkien hakka cebuano ilocano sundanese
tetum yiddish ladino romani breton cornish scots gaelic occitan corsican sardinian sicilian
romansh chechen uyghur turkmen kyrgyz tajik slovene flemish haitian creole"""
)

PET_SPECIES = _words(
    """dog cat puppy kitten rabbit bunny hamster parrot bird fish goldfish turtle tortoise
snake lizard horse ferret gecko budgie hedgehog chinchilla rat mouse pony iguana cockatiel
canary pig goat chicken retriever labrador lab poodle beagle terrier bulldog husky corgi
dachshund spaniel collie chihuahua pug greyhound schnauzer rottweiler labradoodle goldendoodle
cockapoo tabby
pup kitty doggo pupper cockatoo macaw lovebird parakeet tarantula axolotl dragon frog tortie
staffy whippet lurcher malamute dalmatian pitbull mutt moggy duck alpaca donkey"""
)

DIETS = _words(
    """vegetarian vegan pescatarian pescetarian keto ketogenic paleo gluten-free dairy-free
lactose-free kosher halal carnivore flexitarian raw-vegan low-carb plant-based"""
)

# The last word of a job title: "senior software engineer", "head nurse".
JOB_WORDS = _words(
    """engineer developer programmer designer manager nurse teacher doctor lawyer accountant
analyst consultant scientist researcher writer editor journalist architect chef cook pilot
pharmacist dentist therapist student professor lecturer librarian electrician plumber
mechanic carpenter barista waiter waitress cashier salesperson marketer recruiter
photographer artist musician administrator director officer executive ceo cto cfo coo cio
founder cofounder co-founder intern assistant technician paramedic firefighter veterinarian
vet surgeon physician psychologist psychiatrist economist banker trader broker specialist
coordinator lead vp president owner freelancer contractor translator interpreter tutor
coach trainer nanny driver farmer baker butcher tailor secretary receptionist clerk auditor
actuary statistician biologist chemist physicist mathematician sre pm strategist
copywriter illustrator animator producer actor actress dancer singer composer
entrepreneur investor partner associate principal supervisor foreman janitor cleaner
caregiver midwife optometrist radiologist surgeon pediatrician paralegal attorney
judge diplomat soldier sergeant captain lieutenant detective policeman policewoman
postdoc fellow teaching scholar curator archivist practitioner hygienist counselor
counsellor advisor adviser planner operator inspector worker instructor attendant steward
stewardess guide ranger agent rep representative dispatcher machinist welder surveyor
programmer sommelier bartender hairdresser stylist barber florist jeweller jeweler
optician podcaster streamer youtuber influencer blogger vlogger columnist reporter
anchor presenter host model curator conductor violinist pianist guitarist drummer
professor docent dean principal headteacher headmaster headmistress nanny au-pair
housekeeper concierge courier trucker mover miner fisherman shepherd gardener landscaper
beekeeper winemaker brewer roaster distiller potter sculptor painter tattooist
ux ui devops qa tester sysadmin dba scrum physiotherapist physio osteopath chiropractor
dietitian dietician nutritionist radiographer sonographer phlebotomist anaesthetist
anesthesiologist podiatrist audiologist paramedic orthodontist hygienist doula carer
tech technologist medic solicitor barrister notary dispenser"""
)

# Tools and crafts known by a capitalised name, told apart from people's names in "I know
# Python really well" (and not "I know Tom really well").
TOOLS = _words(
    """python java javascript typescript rust go golang ruby rails php perl scala kotlin swift
haskell elixir erlang clojure julia matlab fortran cobol pascal delphi lua dart flutter
react angular vue svelte django flask spring node nodejs deno linux unix windows macos
excel word powerpoint outlook sharepoint access photoshop illustrator indesign lightroom
premiere figma sketch blender maya unity unreal autocad revit solidworks sap salesforce
tableau jira confluence git github docker kubernetes terraform ansible aws azure gcp
postgres postgresql mysql oracle mongodb redis kafka spark hadoop airflow snowflake
pandas numpy pytorch tensorflow keras latex wordpress shopify hubspot quickbooks sql"""
)

# Crafts and abilities people pick up and are good at, by name: "picked up pottery", "i do
# carpentry on the side", "learned to solder". Not sports or pastimes (a liking more often).
CRAFTS = _words(
    """pottery ceramics carpentry woodworking woodwork woodturning joinery knitting crochet
sewing embroidery quilting tailoring dressmaking upholstery weaving macrame calligraphy
lettering soldering welding blacksmithing metalwork leatherwork glassblowing bookbinding
printmaking silversmithing sculpting whittling origami photography
videography illustration drawing painting sketching watercolour watercolor animation
baking butchery beekeeping brewing winemaking gardening
bonsai plumbing bricklaying plastering tiling roofing electronics programming coding
juggling lockpicking shorthand stenography typing proofreading editing
translating interpreting signing guitar piano violin viola cello ukulele banjo
mandolin clarinet saxophone trumpet trombone accordion harmonica singing
beatboxing djing"""
)
# The verb of a craft, read as the craft: "learned to solder", "can knit".
CRAFT_VERBS = _pairs(
    """solder:soldering weld:welding knit:knitting sew:sewing crochet:crochet
quilt:quilting embroider:embroidery juggle:juggling bake:baking paint:painting draw:drawing
sing:singing whittle:whittling weave:weaving sculpt:sculpting code:coding
program:programming type:typing brew:brewing"""
)

# Words that make "I'm a good cook" a judgement rather than a job.
JUDGEMENTS = _words(
    """good great bad terrible awful decent amazing excellent big huge natural born lousy
horrible fantastic wonderful better best worse worst hard"""
)

# Words a value never runs across: "Surabaya for my new job", "Google as an engineer".
STOP_WORDS = _words(
    """for as in since and but because now next starting from on this last with where which
who so to after before until when while today tomorrow yesterday soon again anymore already
though too also lately recently these that at by or than then nowadays currently full-time
part-time remotely remote yet right there here lol haha btw ever more most much it's that's
i'm i've he's she's they're we're you're there's what's tbh ngl imo rn fr lmao omg
not"""
)

# Lower-case words that may sit inside a proper name: "Bank of America", "Rio de Janeiro".
NAME_CONNECTORS = _words("of and & de da do du la le van von der den the y el al")

# Objects of "I love/like ..." that are not a preference about a thing.
NOT_LIKES = _words(
    """you it that this them him her me us everyone everybody someone somebody how what when
where why which whatever working"""
)

# How people name the single-valued predicates of the vocabulary: the semantic level maps an
# agent's own predicate ("works_for", "home_city") onto these by meaning.
PREDICATE_NAMES = {
    "employer": ["employer", "works for", "works at", "company", "employed by", "workplace"],
    "job_title": ["job title", "occupation", "profession", "job", "role at work"],
    "city": ["city", "lives in", "current city", "home city", "based in", "resides in"],
    "country": ["country", "country of residence", "lives in country"],
    "email": ["email", "email address", "e-mail"],
    "phone": ["phone", "phone number", "mobile number", "telephone"],
    "birthday": ["birthday", "date of birth", "birth date", "born on"],
    "spouse": ["spouse", "wife", "husband", "married to"],
    "partner": ["partner", "girlfriend", "boyfriend", "dating"],
    "diet": ["diet", "dietary preference", "eating habits"],
}

# What "leaving X for ..." is for when it is no new place or employer: "for good", "for a week".
NOT_A_VALUE_AFTER_FOR = _words("good now a an the some two three few while bit week month year")

# Common words a lower-case name is told apart from: "my son jake" names him, "my son is
# sick", "my dog ate my sock", "my wife and I" do not. Verbs are listed by their stem; their
# -s, -ed and -ing forms are read as the stem.
COMMON_WORDS = _words(
    """a an the and or but nor so yet if then than that this these those there here what
which who whom whose when where why how all any both each every some no not none one two
three four five six seven eight nine ten first second third last next other another such
same own only just also too very really quite pretty rather so much many more most less
least few lot lots bit little big small tiny huge old young new good bad great best better
worse worst nice fine ok okay sick ill unwell poorly tired sleepy hungry home back away out
up down over off in on at to from with without into onto about around through across along
after before behind between under above near by for of as like unlike since until till via
per is are was were be been being am has have had having do does did done doing can could
will would shall should may might must need ought gets got get getting gotten go goes went
gone make made take took taken give gave given come came see saw seen know knew known think
thought say said tell told ask eat ate eaten drink drank sleep slept run ran wake woke keep
kept feel felt leave left bring brought buy bought find found hold held lose lost meet met
pay paid put read send sent sit sat stand stood teach taught win won write wrote
love like hate want need work live play stay start finish try turn call move help look
watch walk talk cook clean cry laugh smile sing dance bark meow chew bite jump swim learn
study graduate marry propose wait hope agree refuse pick drop drive fly visit miss text
always never ever still already again almost even often sometimes usually rarely seldom
literally basically actually honestly seriously totally absolutely definitely probably
finally recently currently apparently obviously clearly truly really kinda sorta lowkey
highkey legit tbh btw imo imho lol lmao rofl haha hehe omg omfg wtf smh ngl idk iirc fyi
rn atm asap pls plz thx ty ugh ugh yay wow oh ah ahh hmm hm yeah yep yes nope nah na
sure maybe perhaps whatever anyway anyways though tho cuz coz cause bc because while whilst
today tonight tomorrow yesterday morning evening night week weekend month year now later
soon early late day days time times age years months weeks
school nursery daycare class classes lesson lessons homework practice training match game
football soccer rugby cricket hockey basketball baseball tennis swimming ballet piano
teacher coach birthday party recital exam exams test tests trip
n r u ur ya yo x xx xxx im ive id ill its hes shes theyre were youre dont doesnt didnt
cant wont isnt arent wasnt werent hasnt havent
asleep awake alive dead busy free happy sad mad angry upset annoyed scared afraid excited
nervous obsessed allergic sweet cute adorable lovely gorgeous beautiful handsome smart
clever funny silly crazy naughty lazy fat fluffy tall short loud quiet grumpy moody
healthy pregnant sober drunk ready done gone right wrong sorry glad proud lucky fine
walker sitter food bed toys toy treats treat bowl lead leash crate vet insurance hair
school nursery daycare class homework teacher teachers friend friends family parents
mum mom dad brother sister birthday party room stuff things thing job car phone
number name names photo photos pic pics picture pictures bday wedding house alert update
news drama problems issues going doing being dying lying life man woman guy person
people someone somebody couple
speak spoke snore adore forget forgot break broke throw threw swear swore wear wore tear tore
ride rode hide hid bite bit fall fell catch caught fight fought sell sold sing sang ring rang
begin began drive drove grow grew blow blew draw drew shake shook steal stole choose chose
freeze froze wake woke lend lent spend spent build built bend bent feel felt deal dealt mean
meant sleep slept hear heard hurt cut hit let set shut quit cost beat become became forgive
forgave understand understood stick stuck sting stung swing swung hang hung dig dug shine
shone shoot shot lead led flee fled light lit ignore prefer enjoy miss kiss hug cuddle snuggle
scratch lick sniff chase fetch poop pee puke vomit throw sneeze cough smell stink howl purr
hiss growl whine beg escape climb hunt nap rest cry scream yell shout complain whinge moan
insist refuse decide forget remember notice promise pretend admit deny accept reject apply
graduate retire quit join leave travel return arrive land crash fix repair paint draw bake
fry grill order cancel book plan organise organize arrange host invite text call email phone
message ring answer reply ask beg wish wonder worry care mind matter hate despise dislike
adopt rescue foster feed bathe groom train raise spoil ruin destroy chew eat devour steal
snack munch bark meow moult shed jump hop run sprint walk wander roam explore discover
sit stand lie lay lying sleep snooze doze wake
my your his her its our their me him them us myself yourself himself herself"""
)

# The short forms chat and signatures use for a job's last word: "software dev at Monzo",
# "Senior PM, Acme", "sales rep".
JOB_WORDS = JOB_WORDS | _words("dev devs pm rep eng sre qa ux admin exec receptionist nanny carer")
