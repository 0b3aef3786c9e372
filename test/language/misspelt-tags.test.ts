import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { misspeltTagMessage, misspeltTags } from '../../src/language/misspelt-tags.js';

describe('misspeltTags', () => {
  it('finds a closed unknown tag close to a known one, each once, with the tag it was meant as', () => {
    assert.deepEqual(
      misspeltTags('<fork item="a">W</fork> <jion>C</jion> <reslt>x</reslt> <jion>C</jion>'),
      [
        { written: 'jion', meant: 'join' },
        { written: 'reslt', meant: 'result' },
      ],
    );
    assert.deepEqual(misspeltTags('<Gto>NEXT</Gto>'), [{ written: 'Gto', meant: 'goto' }]);
  });

  it('leaves known tags, prose, unclosed names, far names and other first letters alone', () => {
    assert.deepEqual(
      misspeltTags(
        '<result>ok</result> a <b>bold</b> <jion> never closed <summary>s</summary> <task>t</task>',
      ),
      [],
    );
  });

  it('says it in one line', () => {
    assert.equal(
      misspeltTagMessage({ written: 'jion', meant: 'join' }),
      'unknown tag `<jion>`: did you mean `<join>`?',
    );
  });
});
