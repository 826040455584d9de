//! The languages the highlighter knows: for each, the fence words that name it and what its
//! lexer needs to know (comment and string syntax, keyword, type and constant words), as data.
//!
//! One table, read by [`super::lexer`]; markup languages (HTML, XML) have their own lexer
//! ([`super::tags`]). A language not here is written plain, as it was before.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::spans::Class;

/// Which lexer reads a language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    /// Programming and data languages: [`super::lexer`].
    Code,
    /// HTML and XML: [`super::tags`].
    Tags,
}

/// One language's syntax, as far as highlighting needs it. Word lists are separated by spaces;
/// in a language that ignores case they are written in lower case.
pub(super) struct Lang {
    /// The fence words that name it (lower case).
    pub names: &'static [&'static str],
    pub family: Family,
    /// What starts a comment that runs to the end of the line.
    pub line_comments: &'static [&'static str],
    /// A comment's opening and closing marks.
    pub block_comment: Option<(&'static str, &'static str)>,
    /// Whether block comments nest (Rust, Haskell).
    pub nested_comments: bool,
    /// A comment or a quote starts only at the start of a word (`#` in shell, `'` in YAML
    /// prose and in `don't`).
    pub word_start_only: bool,
    /// The bytes that open (and close) a string.
    pub quotes: &'static [u8],
    /// Of those, the ones whose strings have no backslash escapes.
    pub raw_quotes: &'static [u8],
    /// Of those, the ones whose strings may run over lines.
    pub multiline_quotes: &'static [u8],
    /// `"""` and `'''` strings.
    pub triple_quotes: bool,
    /// Words that prefix a string (`b"…"`, `f'…'`).
    pub string_prefixes: &'static [&'static str],
    /// Words that prefix a string without escapes (`r"…"`; in Rust also `r#"…"#`).
    pub raw_prefixes: &'static [&'static str],
    /// `'` opens a one-character literal only (Rust, Haskell); otherwise, with `lifetimes`, it
    /// starts a lifetime (`'a`).
    pub char_literals: bool,
    pub lifetimes: bool,
    /// Bytes, besides letters, digits and `_`, that continue a word.
    pub word_extra: &'static [u8],
    /// Bytes that start a variable, decorator or annotation (`$x`, `@x`).
    pub sigils: &'static [u8],
    /// A word or string followed by this byte is a key (`:` in YAML and JSON, `=` in TOML).
    pub keys: Option<u8>,
    /// `[section]` at the start of a line is a table name (TOML, INI).
    pub sections: bool,
    /// `#include` and the like at the start of a line.
    pub preprocessor: bool,
    /// `#[attribute]` (Rust).
    pub hash_attributes: bool,
    /// `name!` is a macro (Rust).
    pub macros: bool,
    /// `name(` is a function call.
    pub calls: bool,
    /// A capitalised word is a type (an all-capitals one a constant).
    pub caps_types: bool,
    /// `:name` is a symbol (Ruby).
    pub symbols: bool,
    /// Keywords in any case (SQL).
    pub ignore_case: bool,
    pub keywords: &'static str,
    pub types: &'static str,
    /// Literal constants: `true`, `null`.
    pub constants: &'static str,
    /// Built-in functions.
    pub builtins: &'static str,
    /// Keywords followed by a function's name (`fn`, `def`).
    pub fn_words: &'static str,
    /// Keywords followed by a type's name (`struct`, `class`).
    pub type_words: &'static str,
}

/// What a word of the language is: its class, and the class of the name after it (`fn` ->
/// the function's name).
#[derive(Debug, Clone, Copy)]
pub(super) struct Word {
    pub class: Class,
    pub then: Option<Class>,
}

/// A language's words, looked up once per word of the block.
pub(super) type Words = FxHashMap<&'static str, Word>;

const BASE: Lang = Lang {
    names: &[],
    family: Family::Code,
    line_comments: &[],
    block_comment: None,
    nested_comments: false,
    word_start_only: false,
    quotes: b"\"'",
    raw_quotes: b"",
    multiline_quotes: b"",
    triple_quotes: false,
    string_prefixes: &[],
    raw_prefixes: &[],
    char_literals: false,
    lifetimes: false,
    word_extra: b"",
    sigils: b"",
    keys: None,
    sections: false,
    preprocessor: false,
    hash_attributes: false,
    macros: false,
    calls: true,
    caps_types: false,
    symbols: false,
    ignore_case: false,
    keywords: "",
    types: "",
    constants: "",
    builtins: "",
    fn_words: "",
    type_words: "",
};

/// C's comments, strings and words, which C++, Java, C#, JavaScript and others build on.
const C_LIKE: Lang = Lang {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    ..BASE
};

const C_KEYWORDS: &str = "auto break case const continue default do else extern for goto if \
    inline register restrict return sizeof static switch typedef volatile while _Alignas \
    _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local";
const C_TYPES: &str = "void char short int long float double signed unsigned _Bool _Complex \
    bool size_t ssize_t ptrdiff_t intptr_t uintptr_t wchar_t int8_t int16_t int32_t int64_t \
    uint8_t uint16_t uint32_t uint64_t FILE";
const C_CONSTANTS: &str = "NULL true false EOF stdin stdout stderr";

/// JavaScript's keywords, a macro so that TypeScript's list can extend it with `concat!`.
macro_rules! js_keywords {
    () => {
        "async await break case catch const continue debugger default delete \
    do else export extends finally for from function if import in instanceof let new of return \
    static super switch this throw try typeof var void while with yield get set"
    };
}
const JS_CONSTANTS: &str = "true false null undefined NaN Infinity";

/// Every language, in no order: a fence word names at most one.
pub(super) static LANGS: [Lang; 30] = [
    Lang {
        names: &["rust", "rs"],
        nested_comments: true,
        quotes: b"\"",
        multiline_quotes: b"\"",
        string_prefixes: &["b", "c"],
        raw_prefixes: &["r", "br", "cr"],
        char_literals: true,
        lifetimes: true,
        hash_attributes: true,
        macros: true,
        caps_types: true,
        keywords: "as async await break const continue crate dyn else enum extern fn for if \
            impl in let loop match mod move mut pub ref return self Self static struct super \
            trait type union unsafe use where while yield",
        types: "bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64",
        constants: "true false",
        fn_words: "fn",
        type_words: "struct enum trait type union",
        ..C_LIKE
    },
    Lang {
        names: &[
            "python", "py", "python3", "py3", "pyi", "pyw", "ipython", "sage",
        ],
        line_comments: &["#"],
        triple_quotes: true,
        multiline_quotes: b"",
        string_prefixes: &["b", "f", "u", "B", "F", "U"],
        raw_prefixes: &[
            "r", "rb", "br", "rf", "fr", "R", "Rb", "bR", "RB", "BR", "Rf", "fR",
        ],
        sigils: b"@",
        keywords: "and as assert async await break case class continue def del elif else \
            except finally for from global if import in is lambda match nonlocal not or pass \
            raise return try while with yield self cls",
        types: "int float complex str bytes bytearray bool list dict set frozenset tuple \
            object type",
        constants: "True False None NotImplemented Ellipsis",
        builtins: "abs all any callable chr dir divmod enumerate eval exec filter format \
            getattr hasattr hash hex id input isinstance issubclass iter len map max min next \
            open ord pow print range repr reversed round setattr sorted sum super vars zip",
        fn_words: "def",
        type_words: "class",
        ..BASE
    },
    Lang {
        names: &["c", "h"],
        preprocessor: true,
        keywords: C_KEYWORDS,
        types: C_TYPES,
        constants: C_CONSTANTS,
        type_words: "struct enum union",
        ..C_LIKE
    },
    Lang {
        names: &[
            "cpp", "c++", "cc", "cxx", "hpp", "hh", "hxx", "h++", "ino", "cu", "cuda",
        ],
        preprocessor: true,
        caps_types: true,
        keywords: "auto break case catch const constexpr consteval constinit const_cast \
            continue co_await co_return co_yield decltype default delete do dynamic_cast else \
            explicit export extern final for friend goto if inline mutable namespace new \
            noexcept operator override private protected public register reinterpret_cast \
            requires return sizeof static static_assert static_cast switch template this \
            thread_local throw try typedef typeid typename using virtual volatile while \
            concept alignas alignof",
        types: "void char char8_t char16_t char32_t short int long float double signed \
            unsigned bool wchar_t size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t \
            uint16_t uint32_t uint64_t string vector map set unique_ptr shared_ptr",
        constants: "NULL nullptr true false",
        type_words: "class struct enum union",
        ..C_LIKE
    },
    Lang {
        names: &["java"],
        triple_quotes: true,
        word_extra: b"$",
        sigils: b"@",
        caps_types: true,
        keywords: "abstract assert break case catch class const continue default do else \
            enum extends final finally for goto if implements import instanceof interface \
            native new package private protected public record return sealed permits static \
            strictfp super switch synchronized this throw throws transient try var void \
            volatile while yield",
        types: "boolean byte char double float int long short",
        constants: "true false null",
        type_words: "class interface enum record",
        ..C_LIKE
    },
    Lang {
        names: &["kotlin", "kt", "kts"],
        triple_quotes: true,
        multiline_quotes: b"",
        sigils: b"@",
        caps_types: true,
        nested_comments: true,
        keywords: "as break by catch class companion const constructor continue crossinline \
            data do else enum external finally for fun get if import in infix init inline \
            inner interface internal is lateinit noinline object open operator out override \
            package private protected public reified return sealed set super suspend this \
            throw try typealias val var vararg when where while",
        constants: "true false null",
        fn_words: "fun",
        type_words: "class interface object typealias",
        ..C_LIKE
    },
    Lang {
        names: &["csharp", "cs", "c#"],
        preprocessor: true,
        caps_types: true,
        keywords: "abstract as async await base break case catch checked class const \
            continue default delegate do else enum event explicit extern finally fixed for \
            foreach get goto if implicit in init interface internal is lock namespace new \
            operator out override params private protected public readonly record ref return \
            sealed set sizeof stackalloc static struct switch this throw try typeof unchecked \
            unsafe using var virtual void volatile when where while yield",
        types: "bool byte char decimal double dynamic float int long object sbyte short \
            string uint ulong ushort nint nuint",
        constants: "true false null",
        type_words: "class struct interface enum record",
        ..C_LIKE
    },
    Lang {
        names: &["go", "golang"],
        quotes: b"\"'`",
        raw_quotes: b"`",
        multiline_quotes: b"`",
        keywords: "break case chan const continue default defer else fallthrough for func go \
            goto if import interface map package range return select struct switch type var",
        types: "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 \
            int64 rune string uint uint8 uint16 uint32 uint64 uintptr any",
        constants: "true false nil iota",
        builtins: "append cap clear close complex copy delete imag len make max min new panic \
            print println real recover",
        fn_words: "func",
        type_words: "type",
        ..C_LIKE
    },
    Lang {
        names: &[
            "javascript",
            "js",
            "jsx",
            "mjs",
            "cjs",
            "node",
            "es6",
            "ecmascript",
        ],
        quotes: b"\"'`",
        multiline_quotes: b"`",
        word_extra: b"$",
        sigils: b"@",
        caps_types: true,
        keywords: js_keywords!(),
        constants: JS_CONSTANTS,
        fn_words: "function",
        type_words: "class",
        ..C_LIKE
    },
    Lang {
        names: &["typescript", "ts", "tsx", "mts", "cts"],
        quotes: b"\"'`",
        multiline_quotes: b"`",
        word_extra: b"$",
        sigils: b"@",
        caps_types: true,
        keywords: concat!(
            js_keywords!(),
            " abstract as declare enum implements interface keyof namespace private \
            protected public readonly infer is satisfies override"
        ),
        types: "string number boolean any unknown never object symbol bigint",
        constants: JS_CONSTANTS,
        fn_words: "function",
        type_words: "class interface type enum namespace",
        ..C_LIKE
    },
    Lang {
        names: &["swift"],
        nested_comments: true,
        quotes: b"\"",
        triple_quotes: true,
        sigils: b"@",
        caps_types: true,
        keywords: "associatedtype as async await break case catch class continue default \
            defer deinit do else enum extension fallthrough fileprivate final for func guard \
            if import in indirect init inout internal is lazy let mutating open operator \
            override private protocol public repeat rethrows return self Self some static \
            struct subscript super switch throw throws try typealias var weak where while",
        constants: "true false nil",
        fn_words: "func",
        type_words: "class struct enum protocol extension typealias",
        ..C_LIKE
    },
    Lang {
        names: &["scala", "sc", "sbt"],
        triple_quotes: true,
        sigils: b"@",
        caps_types: true,
        keywords: "abstract case catch class def do else enum export extends final finally \
            for forSome given if implicit import lazy match new object override package \
            private protected return sealed super then this throw trait try type using val \
            var while with yield",
        constants: "true false null",
        fn_words: "def",
        type_words: "class object trait type enum",
        ..C_LIKE
    },
    Lang {
        names: &["dart"],
        triple_quotes: true,
        sigils: b"@",
        caps_types: true,
        keywords: "abstract as assert async await base break case catch class const \
            continue covariant default deferred do dynamic else enum export extends extension \
            external factory final finally for get hide if implements import in interface is \
            late library mixin new on operator part required rethrow return sealed set show \
            static super switch sync this throw try typedef var void when while with yield",
        types: "int double num bool",
        constants: "true false null",
        type_words: "class enum mixin extension typedef",
        ..C_LIKE
    },
    Lang {
        names: &["php"],
        line_comments: &["//", "#"],
        sigils: b"$",
        multiline_quotes: b"\"'",
        caps_types: true,
        keywords: "abstract and array as break callable case catch class clone const continue \
            declare default do echo else elseif empty enddeclare endfor endforeach endif \
            endswitch endwhile enum extends final finally fn for foreach function global goto \
            if implements include include_once instanceof insteadof interface isset list match \
            namespace new or print private protected public readonly require require_once \
            return static switch throw trait try unset use var while xor yield",
        constants: "true false null TRUE FALSE NULL",
        fn_words: "function",
        type_words: "class interface trait enum",
        ..C_LIKE
    },
    Lang {
        names: &[
            "bash",
            "sh",
            "shell",
            "zsh",
            "ksh",
            "shellscript",
            "console",
            "shell-session",
        ],
        line_comments: &["#"],
        word_start_only: true,
        raw_quotes: b"'",
        multiline_quotes: b"\"'",
        word_extra: b"-",
        sigils: b"$",
        calls: false,
        keywords: "if then else elif fi case esac for while until do done in function select \
            return exit break continue local export readonly declare typeset unset shift \
            source alias set trap eval exec",
        builtins: "echo printf cd pwd read test",
        fn_words: "function",
        ..BASE
    },
    Lang {
        names: &["powershell", "ps1", "pwsh", "ps", "psm1"],
        line_comments: &["#"],
        block_comment: Some(("<#", "#>")),
        raw_quotes: b"'",
        multiline_quotes: b"\"'",
        word_extra: b"-",
        sigils: b"$",
        ignore_case: true,
        keywords: "begin break catch class continue data do dynamicparam else elseif end \
            enum exit filter finally for foreach function if in param process return switch \
            throw trap try until using var while",
        fn_words: "function filter",
        ..BASE
    },
    Lang {
        names: &[
            "sql",
            "mysql",
            "postgresql",
            "postgres",
            "psql",
            "plsql",
            "plpgsql",
            "sqlite",
            "tsql",
            "pgsql",
        ],
        line_comments: &["--"],
        raw_quotes: b"'\"",
        multiline_quotes: b"'",
        ignore_case: true,
        keywords: "add all alter and any as asc begin between by case check column commit \
            constraint create cross database default delete desc distinct drop else end \
            except exists foreign from full function group having if in index inner insert \
            intersect into is join key left like limit not null offset on or order outer \
            primary procedure references returning returns right rollback select set table \
            then transaction trigger union unique update using values view when where with",
        types: "int integer bigint smallint tinyint serial bigserial decimal numeric real \
            float double precision varchar char character text date time timestamp \
            timestamptz interval boolean bool blob bytea json jsonb uuid",
        constants: "true false",
        builtins: "count sum avg min max coalesce nullif cast lower upper length substr \
            substring now round abs",
        ..C_LIKE
    },
    Lang {
        names: &["ruby", "rb", "rake", "gemspec", "podspec", "thor", "irb"],
        line_comments: &["#"],
        multiline_quotes: b"\"'",
        quotes: b"\"'`",
        sigils: b"@$",
        symbols: true,
        calls: false,
        caps_types: true,
        keywords: "alias and begin break case class def defined do else elsif end ensure for \
            if in module next not or redo rescue retry return self super then undef unless \
            until when while yield require require_relative include extend attr_reader \
            attr_writer attr_accessor private protected public lambda proc raise",
        constants: "true false nil",
        builtins: "puts print p",
        fn_words: "def",
        type_words: "class module",
        ..BASE
    },
    Lang {
        names: &["lua", "luau"],
        block_comment: Some(("--[[", "]]")),
        line_comments: &["--"],
        keywords: "and break do else elseif end for function goto if in local not or repeat \
            return then until while",
        constants: "true false nil",
        builtins: "assert error ipairs next pairs pcall print rawget rawset require \
            select setmetatable getmetatable tonumber tostring type unpack xpcall",
        fn_words: "function",
        ..BASE
    },
    Lang {
        names: &["haskell", "hs", "lhs"],
        line_comments: &["--"],
        block_comment: Some(("{-", "-}")),
        nested_comments: true,
        quotes: b"\"",
        char_literals: true,
        word_extra: b"'",
        caps_types: true,
        calls: false,
        keywords: "as case class data default deriving do else family forall foreign hiding \
            if import in infix infixl infixr instance let mdo module newtype of qualified rec \
            then type where",
        type_words: "data newtype type class instance",
        ..BASE
    },
    Lang {
        names: &["perl", "pl", "pm"],
        line_comments: &["#"],
        multiline_quotes: b"\"'",
        sigils: b"$@%",
        keywords: "my our local sub if elsif else unless while until for foreach do last \
            next redo return use no require package and or not eq ne lt gt le ge cmp qw",
        builtins: "print printf say die warn open close push pop shift unshift split join \
            keys values exists delete defined scalar ref bless",
        fn_words: "sub",
        ..BASE
    },
    Lang {
        names: &["r", "rscript", "rlang"],
        line_comments: &["#"],
        multiline_quotes: b"\"'",
        keywords: "if else repeat while function for in next break return library require",
        constants: "TRUE FALSE NULL NA NaN Inf NA_integer_ NA_real_ NA_character_ T F",
        ..BASE
    },
    Lang {
        names: &["dockerfile", "docker", "containerfile"],
        line_comments: &["#"],
        word_start_only: true,
        sigils: b"$",
        ignore_case: true,
        calls: false,
        keywords: "from run cmd label maintainer expose env add copy entrypoint volume user \
            workdir arg onbuild stopsignal healthcheck shell as",
        ..BASE
    },
    Lang {
        names: &["makefile", "make", "mk", "mak"],
        line_comments: &["#"],
        word_start_only: true,
        sigils: b"$",
        calls: false,
        keywords: "ifeq ifneq ifdef ifndef else endif include define endef export override \
            unexport vpath",
        ..BASE
    },
    Lang {
        names: &["css", "scss", "less", "sass", "stylus"],
        block_comment: Some(("/*", "*/")),
        line_comments: &["//"],
        word_start_only: true,
        word_extra: b"-",
        sigils: b"@$",
        keys: Some(b':'),
        keywords: "important",
        ..BASE
    },
    Lang {
        names: &[
            "json",
            "jsonc",
            "json5",
            "geojson",
            "jsonl",
            "ndjson",
            "webmanifest",
        ],
        quotes: b"\"",
        keys: Some(b':'),
        calls: false,
        constants: "true false null",
        ..C_LIKE
    },
    Lang {
        names: &["toml"],
        line_comments: &["#"],
        raw_quotes: b"'",
        triple_quotes: true,
        word_extra: b"-",
        keys: Some(b'='),
        sections: true,
        calls: false,
        constants: "true false inf nan",
        ..BASE
    },
    Lang {
        names: &["yaml", "yml"],
        line_comments: &["#"],
        word_start_only: true,
        raw_quotes: b"'",
        word_extra: b"-.",
        sigils: b"&*!",
        keys: Some(b':'),
        calls: false,
        constants: "true false null yes no on off True False Null Yes No On Off TRUE FALSE NULL",
        ..BASE
    },
    Lang {
        names: &[
            "ini",
            "cfg",
            "conf",
            "config",
            "properties",
            "dosini",
            "editorconfig",
            "gitconfig",
            "desktop",
            "systemd",
            "service",
        ],
        line_comments: &[";", "#"],
        word_start_only: true,
        raw_quotes: b"'\"",
        word_extra: b"-.",
        keys: Some(b'='),
        sections: true,
        calls: false,
        constants: "true false yes no on off",
        ..BASE
    },
    Lang {
        names: &[
            "html", "htm", "xhtml", "xml", "svg", "xsl", "xslt", "xsd", "rss", "atom", "plist",
            "opf", "ncx", "mathml", "vue", "svelte", "jsp", "aspx", "wsdl", "csproj", "xaml",
        ],
        family: Family::Tags,
        ..BASE
    },
];

/// The language a fence's language word names (`rust`, `py`, `TOML`), if the highlighter
/// knows it.
pub(super) fn find(word: &str) -> Option<(usize, &'static Lang)> {
    let word = word.trim().to_ascii_lowercase();
    LANGS
        .iter()
        .enumerate()
        .find(|(_, lang)| lang.names.contains(&word.as_str()))
}

/// The words of the `index`th language of [`LANGS`], made the first time a block of it is
/// highlighted.
pub(super) fn words(index: usize) -> &'static Words {
    static WORDS: [OnceLock<Words>; LANGS.len()] = [const { OnceLock::new() }; LANGS.len()];
    WORDS[index].get_or_init(|| make_words(&LANGS[index]))
}

fn make_words(lang: &Lang) -> Words {
    let mut words = Words::default();
    let lists = [
        (lang.builtins, Class::Function, None),
        (lang.types, Class::Type, None),
        (lang.constants, Class::Number, None),
        (lang.keywords, Class::Keyword, None),
        (lang.fn_words, Class::Keyword, Some(Class::Function)),
        (lang.type_words, Class::Keyword, Some(Class::Type)),
    ];
    // Later lists win: `type` is a type word in Go, not only a keyword.
    for (list, class, then) in lists {
        for word in list.split_ascii_whitespace() {
            words.insert(word, Word { class, then });
        }
    }
    words
}
