#!/bin/sh
# Extracts the dictionaries of OpenCC 1.4.2 (the PyPI `opencc` wheel's .ocd2 files) as text into
# src/text_fix/opencc/data/, with the wheel's own `opencc_dict`, so that our conversion uses
# exactly the data the reference implementation does. Run it again after upgrading OpenCC.
#   usage: tools/opencc-data.sh [PYTHON]    (PYTHON: one with `opencc` installed;
#                                            default /work/corpus/venv/bin/python)
set -eu
python=${1:-/work/corpus/venv/bin/python}
clib=$("$python" -c 'import os, opencc.clib as c; print(os.path.dirname(c.__file__))')
echo "OpenCC $("$python" -c 'import opencc; print(opencc.__version__)') from $clib"
out=$(dirname "$0")/../src/text_fix/opencc/data
mkdir -p "$out"
# HKPhrases and HKPhrasesRev serve only s2hkp and hk2sp, which `convert` does not offer.
for name in CJK_Compatibility_Ideographs HKVariants HKVariantsPhrases HKVariantsRev \
    HKVariantsRevPhrases JPShinjitaiCharacters JPShinjitaiCharactersRev JPShinjitaiPhrases \
    STCharacters STPhrases STPhrases_GeneratedFromRegionalPhrases TSCharacters \
    TSCharactersExt TSPhrases TWPhrases TWPhrasesRev TWVariants TWVariantsPhrases \
    TWVariantsRev TWVariantsRevPhrases; do
    "$clib/bin/opencc_dict" -i "$clib/share/opencc/$name.ocd2" -o "$out/$name.txt" -f ocd2 -t text
done
cp "$(dirname "$clib")/../opencc-$("$python" -c 'import opencc; print(opencc.__version__)').dist-info/licenses/LICENSE" "$out/LICENSE"
