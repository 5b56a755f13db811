import { describe, expect, it } from "vitest";
import { splitRequirements } from "./requirements";

describe("splitRequirements", () => {
  it.each([
    ["the seed's comma-separated list", "pandas==2.2.*, matplotlib, openpyxl", ["pandas==2.2.*", "matplotlib", "openpyxl"]],
    ["one per line, blanks and spaces dropped", "  numpy \n\n scipy>=1.11\n", ["numpy", "scipy>=1.11"]],
    ["lines and commas mixed", "numpy, scipy\nrequests", ["numpy", "scipy", "requests"]],
    ["a range's comma stays", "pandas>=2,<3", ["pandas>=2,<3"]],
    ["a range's comma with spaces stays", "pandas >= 2, < 3, numpy", ["pandas >= 2, < 3", "numpy"]],
    ["exclusions and compatible releases stay", "django~=4.2,!=4.2.1, flask", ["django~=4.2,!=4.2.1", "flask"]],
    ["an == after a comma continues the specifiers", "foo>1,==1.5", ["foo>1,==1.5"]],
    ["extras keep their commas", "requests[socks,security]>=2, boto3", ["requests[socks,security]>=2", "boto3"]],
    ["parenthesised specifiers keep their commas", "name (>=1, <2), other", ["name (>=1, <2)", "other"]],
    ["a URL keeps its commas", "pkg @ https://example.com/a,b.whl, other", ["pkg @ https://example.com/a,b.whl", "other"]],
    ["a name starting with a digit is a new requirement", "numpy, 7zip-py", ["numpy", "7zip-py"]],
    ["markers are kept with their requirement", 'tomli; python_version < "3.11", rich', ['tomli; python_version < "3.11"', "rich"]],
    ["trailing and doubled commas leave no blanks", "numpy,, scipy,", ["numpy", "scipy"]],
    ["nothing", " \n ", []],
  ])("%s", (_name, text, expected) => {
    expect(splitRequirements(text)).toEqual(expected);
  });
});
